package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

// Repository is where install-model fetches a transformer model from.
func Repository(s onnx.Spec) model2vec.Repository {
	return model2vec.Repository{Name: s.Name, Repo: s.Repo, Files: s.Files}
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
	dir, ok := model2vec.FindRepository(Repository(spec), cache)
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

// openORT opens a transformer embedding model.
func openORT(ctx context.Context, alias string, opts Options) (embed.Embedder, error) {
	if !onnx.Available {
		return nil, wrap(alias, onnx.ErrNeedsORT)
	}
	dir, err := ortDir(alias, opts)
	if err != nil {
		return nil, wrap(alias, err)
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
