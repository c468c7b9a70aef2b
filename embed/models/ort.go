package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// Repository is where install-model fetches a transformer model from.
func Repository(s onnx.Spec) model2vec.Repository {
	return model2vec.Repository{Name: s.Name, Repo: s.Repo, Files: s.Files}
}

// checkpointRepository is s's repository as the pure-Go build installs
// it: the publisher's model.safetensors instead of the ONNX graph (the
// weights the pure-Go encoder reads; a graph exported elsewhere names
// its weights in no way it can read).
func checkpointRepository(s onnx.Spec) model2vec.Repository {
	return model2vec.Repository{Name: s.Name, Repo: s.Repo, Files: []string{onnxgen.WeightsFile, tokenizerFile, onnxgen.ConfigFile}}
}

// InstallRepository is what install-model fetches for s in this binary:
// the ONNX graph for ONNX Runtime, or, in a binary without it, the
// checkpoint for a model the pure-Go encoder runs.
func InstallRepository(s onnx.Spec) model2vec.Repository {
	if !onnx.Available && s.PureGo {
		return checkpointRepository(s)
	}
	return Repository(s)
}

// FindTransformer finds the installed folder of s in either layout (see
// InstallRepository).
func FindTransformer(s onnx.Spec, cache string) (string, bool) {
	if dir, ok := model2vec.FindRepository(Repository(s), cache); ok {
		return dir, true
	}
	if s.PureGo {
		return model2vec.FindRepository(checkpointRepository(s), cache)
	}
	return "", false
}

// ORTLibrary finds the ONNX Runtime library: opts.ORTLib (--ort-lib),
// else $ENQUIRE_ORT_LIB, else next to the running binary.
func ORTLibrary(opts Options) (path, source string, err error) {
	exe, _ := os.Executable()
	return onnx.FindLibrary(opts.ORTLib, exe)
}

// isORTFolder reports whether dir holds an ONNX model.
func isORTFolder(dir string) bool {
	for _, p := range []string{onnx.ModelFile, "model.onnx", "onnx/model_quantized.onnx"} {
		if st, err := os.Stat(filepath.Join(dir, p)); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// ortDir resolves a transformer model alias or folder to its folder.
func ortDir(alias string, opts Options) (string, error) {
	if isORTFolder(alias) {
		return alias, nil
	}
	spec, ok := onnx.Lookup(alias)
	if !ok {
		return "", ErrUnknown
	}
	cache, err := CacheDir(opts)
	if err != nil {
		return "", err
	}
	dir, ok := FindTransformer(spec, cache)
	if !ok {
		return "", fmt.Errorf("not installed in %s; run `enquire-mcp install-model %s` (serving never downloads)", cache, spec.Name)
	}
	return dir, nil
}

// isORT reports whether alias names a transformer model: a known name or
// a folder with an ONNX model.
func isORT(alias string) bool {
	_, known := onnx.Lookup(alias)
	return known || isORTFolder(alias)
}

// openORT opens a transformer embedding model: with ONNX Runtime in the
// ort build, else with the pure-Go encoder (package bert), which runs
// the models whose Spec says PureGo and model folders of a BERT
// checkpoint.
func openORT(ctx context.Context, alias string, opts Options) (embed.Embedder, error) {
	if s, ok := onnx.Lookup(alias); ok && !onnx.Available && !s.PureGo {
		return nil, wrap(alias, fmt.Errorf("the pure-Go encoder does not run %s: %w", s.Name, onnx.ErrNeedsORT))
	}
	dir, err := ortDir(alias, opts)
	if err != nil {
		return nil, wrap(alias, err)
	}
	if !onnx.Available {
		e, err := onnx.OpenPureGo(ctx, dir, onnx.Options{})
		if err != nil {
			return nil, wrap(alias, err)
		}
		return e, nil
	}
	lib, _, err := ORTLibrary(opts)
	if err != nil {
		return nil, wrap(alias, err)
	}
	e, err := onnx.Open(ctx, dir, onnx.Options{Library: lib, Arena: opts.BatchJob})
	if err != nil {
		return nil, wrap(alias, err)
	}
	return e, nil
}

// OpenReranker opens a cross-encoder by alias or folder (serve --rerank).
// Like Open, it never downloads: a known model that is not installed is
// an error naming install-model.
func OpenReranker(ctx context.Context, alias string, opts Options) (onnx.Scorer, error) {
	if s, ok := onnx.Lookup(alias); ok && s.Kind != onnx.Reranker {
		return nil, fmt.Errorf("reranker %q: %s is an embedding model; rerankers: %s", alias, s.Name, rerankerNames())
	}
	if !isORT(alias) {
		return nil, fmt.Errorf("reranker %q: %w: use one of %s (install it with `enquire-mcp install-model NAME`) or a model folder", alias, ErrUnknown, rerankerNames())
	}
	if !onnx.Available {
		return nil, fmt.Errorf("reranker %q: %w", alias, onnx.ErrNeedsORT)
	}
	dir, err := ortDir(alias, opts)
	if err != nil {
		return nil, fmt.Errorf("reranker %q: %w", alias, err)
	}
	lib, _, err := ORTLibrary(opts)
	if err != nil {
		return nil, fmt.Errorf("reranker %q: %w", alias, err)
	}
	r, err := onnx.OpenReranker(ctx, dir, onnx.Options{Library: lib})
	if err != nil {
		return nil, fmt.Errorf("reranker %q: %w", alias, err)
	}
	return r, nil
}

func rerankerNames() string {
	var names string
	for _, s := range onnx.Known() {
		if s.Kind == onnx.Reranker {
			if names != "" {
				names += ", "
			}
			names += s.Name
		}
	}
	return names
}
