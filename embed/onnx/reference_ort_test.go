//go:build ort

package onnx

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// TestMiniLMMatchesReference embeds the 206 reference texts with the real
// all-MiniLM-L6-v2 weights, converted to ONNX and run in ONNX Runtime, and
// requires cosine ≥ 0.9999 with the independent numpy vectors for every
// text: English, CJK, markdown, single words, the empty text and texts
// cut at the 256-token window.
func TestMiniLMMatchesReference(t *testing.T) {
	raw := rawModel(t, "all-MiniLM-L6-v2")
	m, err := onnxgen.FromCheckpoint(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(raw, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(dir, tok, "all-MiniLM-L6-v2"); err != nil {
		t.Fatal(err)
	}
	texts, want := loadReference(t)
	in := make([]string, len(texts))
	for i, r := range texts {
		in[i] = r.Text
	}
	e := openEmbedder(t, dir, 8)
	got, err := e.Embed(context.Background(), in, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	worst, at := 1.0, 0
	for i := range got {
		c := cosine(got[i], want[i])
		if c < worst {
			worst, at = c, i
		}
		if c < 0.9999 {
			t.Errorf("text %d %.40q: cosine %.6f with the reference, want ≥ 0.9999", i, in[i], c)
		}
	}
	t.Logf("lowest cosine %.7f (text %d %.30q)", worst, at, in[at])
}

// TestPureGoMatchesORT embeds the reference texts with the real
// all-MiniLM-L6-v2 in both engines, from the same installed folder: the
// vectors must agree to cosine ≥ 0.9999 text by text, which is what lets
// them share one model ID (and one index).
func TestPureGoMatchesORT(t *testing.T) {
	raw := rawModel(t, "all-MiniLM-L6-v2")
	m, err := onnxgen.FromCheckpoint(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(raw, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(dir, tok, "all-MiniLM-L6-v2"); err != nil {
		t.Fatal(err)
	}
	texts, _ := loadReference(t)
	in := make([]string, len(texts))
	for i, r := range texts {
		in[i] = r.Text
	}
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
		worst := 1.0
		for i := range a {
			c := cosine(a[i], b[i])
			worst = min(worst, c)
			if c < 0.9999 {
				t.Errorf("%s %d %.40q: cosine %.6f between the engines", kind, i, in[i], c)
			}
		}
		t.Logf("%s: lowest cosine between ONNX Runtime and pure Go (%s) %.8f", kind, pure.Kernel(), worst)
	}
}
