//go:build ort

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
	"github.com/enquire-mcp/enquire-mcp/tools"
)

// ortFolder writes a small random-weight BERT (a cross-encoder with
// cross) over bert-base-uncased's vocabulary into a model folder.
func ortFolder(t *testing.T, cross bool) string {
	t.Helper()
	js, _, err := tokenizertest.BertBaseUncased("../../embed/tokenizer/testdata/bert-base-uncased/vocab.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnxgen.New(onnxgen.Config{Vocab: 30522, Hidden: 32, Layers: 1, Heads: 2, Intermediate: 64, MaxPositions: 128, TypeVocab: 2, CrossEncoder: cross, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(dir, js, ""); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestORTEndToEnd builds embeddings with a transformer model folder and
// searches with it and with a cross-encoder reranker, through the CLI.
func TestORTEndToEnd(t *testing.T) {
	lib := os.Getenv(onnx.LibraryEnv)
	if lib == "" {
		t.Fatalf("the ort tests need %s naming libonnxruntime (see .ci/run)", onnx.LibraryEnv)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	emb, cross := ortFolder(t, false), ortFolder(t, true)
	code, stdout, stderr := runCLI(t, "build-embeddings", "--vault", fixtureVault, "--embedding-model", emb)
	if code != 0 || !strings.Contains(stdout, "transformer:model@") {
		t.Fatalf("build-embeddings: %d %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "search", "--vault", fixtureVault, "--embedding-model", emb, "--rerank", cross, "--rerank-top-n", "5", "--json", "bread dough")
	if code != 0 {
		t.Fatalf("search: %d %s", code, stderr)
	}
	var out tools.SearchOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(out.SignalsUsed, ","), "embeddings") || !strings.Contains(strings.Join(out.SignalsUsed, ","), "rerank") {
		t.Fatalf("signals used %v, errors %v", out.SignalsUsed, out.SignalErrors)
	}
	for i, m := range out.Matches {
		if i < min(5, len(out.Matches)) && (m.PerSignal.Rerank == nil || m.PerSignal.Rerank.Rank != i+1) {
			t.Errorf("match %d: per_signal.rerank %+v", i, m.PerSignal.Rerank)
		}
		if i >= 5 && m.PerSignal.Rerank != nil {
			t.Errorf("match %d below --rerank-top-n has a rerank signal", i)
		}
	}
	// The reranker's folder is no embedding model, and the other way round.
	if code, _, stderr := runCLI(t, "search", "--vault", fixtureVault, "--no-index", "--rerank", emb, "bread"); code == 0 || !strings.Contains(stderr, "logits") {
		t.Errorf("an embedding model as reranker: %d %s", code, stderr)
	}
}
