//go:build ort

package onnx

import (
	"context"
	"math"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// TestRealCheckpointMatchesReference converts the real all-MiniLM-L6-v2
// weights and embeds texts in ONNX Runtime. The vectors must match
// onnxgen's float64 Forward on the same weights, and the first components
// those of an independent float64 numpy computation from
// model.safetensors in PyTorch's conventions (x·Wᵀ + b), with the ids
// Hugging Face's tokenizers library gives: that checks the mapping of the
// checkpoint's tensors, which both of the Go computations share.
func TestRealCheckpointMatchesReference(t *testing.T) {
	_, dir, m := convertedMiniLM(t)
	e := openEmbedder(t, dir, 8)
	tests := []struct {
		text  string
		ids   []int64
		numpy [4]float64
	}{
		{"A man is eating food.", []int64{101, 1037, 2158, 2003, 5983, 2833, 1012, 102}, [4]float64{0.033242, 0.004406, -0.006277, 0.048379}},
		{"A man is eating a piece of bread.", []int64{101, 1037, 2158, 2003, 5983, 1037, 3538, 1997, 7852, 1012, 102}, [4]float64{0.052518, 0.055241, -0.011188, -0.005745}},
		{"A cheetah is running behind its prey.", []int64{101, 1037, 18178, 12928, 2232, 2003, 2770, 2369, 2049, 8336, 1012, 102}, [4]float64{0.022849, 0.104054, -0.033967, -0.024382}},
		{"Obsidian vaults hold Markdown notes.", []int64{101, 29042, 28658, 2907, 2928, 7698, 3964, 1012, 102}, [4]float64{0.014264, 0.087922, -0.029071, -0.010337}},
	}
	texts := make([]string, len(tests))
	for i, tt := range tests {
		texts[i] = tt.text
	}
	got, err := e.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	worstRef, worstNumpy := 0.0, 0.0
	for i, tt := range tests {
		d := maxDiff(got[i], refVector(m, tt.ids, false))
		if d > 1e-5 {
			t.Errorf("%q: max difference from onnxgen's Forward %.3g (want ≤ 1e-5)", tt.text, d)
		}
		dn := maxDiff(got[i][:4], tt.numpy[:])
		if dn > 2e-6 {
			t.Errorf("%q: first components %v, numpy gives %v", tt.text, got[i][:4], tt.numpy)
		}
		worstRef, worstNumpy = max(worstRef, d), max(worstNumpy, dn)
	}
	t.Logf("max difference from Forward %.2g, from numpy (4 components, 6 decimals) %.2g", worstRef, worstNumpy)
	// The model's purpose, as a last sanity check: the two sentences
	// about eating are closer to each other than to the cheetah.
	cos := func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	if near, far := cos(got[0], got[1]), cos(got[0], got[2]); near < far+0.3 || math.IsNaN(near) {
		t.Errorf("cos(food, bread) = %.3f, cos(food, cheetah) = %.3f", near, far)
	}
}
