package onnx

import (
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// bertJSON is bert-base-uncased's tokenizer.json (real vocabulary).
func bertJSON(t testing.TB) []byte {
	t.Helper()
	js, _, err := tokenizertest.BertBaseUncased("../tokenizer/testdata/bert-base-uncased/vocab.json")
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// tiny is a small random-weight BERT over bert-base-uncased's vocabulary.
func tiny(cross bool) onnxgen.Config {
	return onnxgen.Config{Vocab: 30522, Hidden: 32, Layers: 2, Heads: 4, Intermediate: 64, MaxPositions: 64, TypeVocab: 2, CrossEncoder: cross, Seed: 7}
}

// folderFor writes model m as a folder loading as alias ("" = unknown).
func folderFor(t testing.TB, m *onnxgen.Model, alias string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(dir, bertJSON(t), alias); err != nil {
		t.Fatal(err)
	}
	return dir
}

func generate(t testing.TB, c onnxgen.Config) *onnxgen.Model {
	t.Helper()
	m, err := onnxgen.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
