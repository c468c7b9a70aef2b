package onnx

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// TestPureGoMatchesReference embeds the 206 reference texts with the
// real all-MiniLM-L6-v2 weights in the pure-Go encoder, read both ways:
// from the publisher's model.safetensors and from the ONNX graph
// install-model writes. Every text must reach cosine ≥ 0.9999 with the
// independent numpy vectors.
func TestPureGoMatchesReference(t *testing.T) {
	raw := rawModel(t, "all-MiniLM-L6-v2")
	m, err := onnxgen.FromCheckpoint(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := os.ReadFile(filepath.Join(raw, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	converted := filepath.Join(t.TempDir(), "model")
	if err := m.WriteFolder(converted, tok, "all-MiniLM-L6-v2"); err != nil {
		t.Fatal(err)
	}
	texts, want := loadReference(t)
	in := make([]string, len(texts))
	for i, r := range texts {
		in[i] = r.Text
	}
	for name, dir := range map[string]string{"safetensors": raw, "onnx": converted} {
		t.Run(name, func(t *testing.T) {
			e, err := OpenPureGo(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
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
			if e.Truncated() == 0 {
				t.Error("no text counted as cut at the window")
			}
			t.Logf("kernel %s: lowest cosine %.7f (text %d %.30q), %d texts cut", e.Kernel(), worst, at, in[at], e.Truncated())
		})
	}
}
