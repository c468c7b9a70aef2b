package models

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// TestOpenTransformer checks the errors of a transformer model that
// cannot run: not installed, the error names install-model; a model the
// pure-Go encoder does not run names the ort build in the default build;
// a folder with an ONNX model is recognised by its layout.
func TestOpenTransformer(t *testing.T) {
	cache := t.TempDir()
	folder := filepath.Join(t.TempDir(), "m")
	if err := os.MkdirAll(filepath.Join(folder, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, onnx.ModelFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !isORT(folder) || !isORT("BGE-small-en-v1.5") || isORT("potion-base-8M") || isORT(t.TempDir()) {
		t.Error("isORT misclassifies")
	}
	// Both builds run all-MiniLM-L6-v2 (the default one in pure Go).
	if _, err := Open(context.Background(), "all-MiniLM-L6-v2", Options{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "install-model all-MiniLM-L6-v2") {
		t.Errorf("not installed: %v", err)
	}
	_, err := Open(context.Background(), "multilingual-e5-small", Options{CacheDir: cache})
	switch {
	case !onnx.Available && !errors.Is(err, onnx.ErrNeedsORT):
		t.Errorf("default build, a model the pure-Go encoder does not run: %v, want ErrNeedsORT", err)
	case onnx.Available && (err == nil || !strings.Contains(err.Error(), "install-model multilingual-e5-small")):
		t.Errorf("ort build, not installed: %v", err)
	}
	if _, err := OpenReranker(context.Background(), "bge-small-en-v1.5", Options{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "is an embedding model") {
		t.Errorf("embedding model as reranker: %v", err)
	}
	if _, err := OpenReranker(context.Background(), "nope", Options{CacheDir: cache}); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "install-model") {
		t.Errorf("unknown reranker: %v", err)
	}
}

// TestOpenTransformerPureGo opens a model folder by path in the default
// build: the pure-Go encoder runs it, no ONNX Runtime needed.
func TestOpenTransformerPureGo(t *testing.T) {
	if onnx.Available {
		t.Skip("the ort build runs transformer models with ONNX Runtime")
	}
	m, err := onnxgen.New(onnxgen.Config{Vocab: 30522, Hidden: 16, Layers: 1, Heads: 2, Intermediate: 32, MaxPositions: 32, TypeVocab: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := tokenizertest.BertBaseUncased("../tokenizer/testdata/bert-base-uncased/vocab.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := m.WriteFolder(dir, tok, ""); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Embed(context.Background(), []string{"hello world"}, embed.Query)
	if err != nil || len(v) != 1 || len(v[0]) != 16 || !strings.HasPrefix(e.ID(), "transformer:tiny@") {
		t.Errorf("embed: %v, %v; ID %s", v, err, e.ID())
	}
}

// TestInstallRepository checks what install-model fetches: the default
// build takes the checkpoint of a model its pure-Go encoder runs, the ort
// build the ONNX graph; a model only ONNX Runtime runs is its graph in
// both.
func TestInstallRepository(t *testing.T) {
	mini, _ := onnx.Lookup("all-MiniLM-L6-v2")
	e5, _ := onnx.Lookup("multilingual-e5-small")
	want := onnx.ModelFile
	if !onnx.Available {
		want = onnxgen.WeightsFile
	}
	if got := InstallRepository(mini).Files[0]; got != want {
		t.Errorf("all-MiniLM-L6-v2: fetches %s first, want %s", got, want)
	}
	if got := InstallRepository(e5).Files[0]; got != onnx.ModelFile {
		t.Errorf("multilingual-e5-small: fetches %s first, want %s", got, onnx.ModelFile)
	}
}
