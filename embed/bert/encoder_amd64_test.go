package bert_test

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// TestNoAVX2 runs the encoder New builds on an amd64 CPU without AVX2
// (or without FMA), whatever this one has: the plain-Go kernel set,
// against the float64 reference.
func TestNoAVX2(t *testing.T) {
	cfg := onnxgen.Config{Vocab: 97, Hidden: 40, Layers: 2, Heads: 4, Intermediate: 72, MaxPositions: 64, TypeVocab: 2, Seed: 7}
	m, err := onnxgen.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range [][3]bool{{false, false, false}, {true, true, false}} {
		enc, err := bert.NewX86(m.Weights(), f[0], f[1], f[2])
		if err != nil {
			t.Fatal(err)
		}
		if enc.Kernel() != "go" {
			t.Fatalf("AVX-512F %v, AVX2 %v, FMA %v: kernel %q, want the plain-Go one", f[0], f[1], f[2], enc.Kernel())
		}
		forwardMatches(t, m, cfg, enc)
	}
}
