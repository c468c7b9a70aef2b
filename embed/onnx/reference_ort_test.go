//go:build ort

package onnx

import (
	"context"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// TestMiniLMMatchesReference embeds the 206 reference texts with the real
// all-MiniLM-L6-v2 weights, converted to ONNX and run in ONNX Runtime, and
// requires cosine ≥ 0.9999 with the independent numpy vectors for every
// text: English, CJK, markdown, single words, the empty text and texts
// cut at the 256-token window.
func TestMiniLMMatchesReference(t *testing.T) {
	_, dir, _ := convertedMiniLM(t)
	texts, want := loadReference(t)
	in := referenceTexts(texts)
	e := openEmbedder(t, dir, 8)
	got, err := e.Embed(context.Background(), in, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	worst, at := checkAgainst(t, in, got, want, "the reference")
	t.Logf("lowest cosine %.7f (text %d %.30q)", worst, at, in[at])
}

// TestPureGoMatchesORT embeds the reference texts with the real
// all-MiniLM-L6-v2 in both engines, from the same installed folder: the
// vectors must agree to cosine ≥ 0.9999 text by text, which is what lets
// them share one model ID (and one index).
func TestPureGoMatchesORT(t *testing.T) {
	_, dir, _ := convertedMiniLM(t)
	texts, _ := loadReference(t)
	in := referenceTexts(texts)
	ort := openEmbedder(t, dir, 8)
	pure, err := OpenPureGo(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ort.ID() != pure.ID() {
		t.Errorf("IDs differ: ort %s, pure Go %s", ort.ID(), pure.ID())
	}
	for _, kind := range []embed.Kind{embed.Document, embed.Query} {
		a, err := ort.Embed(context.Background(), in, kind)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pure.Embed(context.Background(), in, kind)
		if err != nil {
			t.Fatal(err)
		}
		worst, _ := checkAgainst(t, in, b, a, kind.String()+" vectors of ONNX Runtime")
		t.Logf("%s: lowest cosine between ONNX Runtime and pure Go (%s) %.8f", kind, pure.Kernel(), worst)
	}
}
