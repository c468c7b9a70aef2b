package minilm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// tableSHA256 pins minilm.bin to ID: a new table needs a new ID (bump
// @N), or stored vectors of the old table would be mixed with new ones.
const tableSHA256 = "804be7b93f3cc16ee082d6da352c700bc8d434b403cb204985d00355611a3345"

// tokenizerSHA256 is all-MiniLM-L6-v2's tokenizer.json as published.
const tokenizerSHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

func TestIDPinsTable(t *testing.T) {
	if ID != "builtin:model2vec-minilm-l6-256@1/256" {
		t.Errorf("ID = %q", ID)
	}
	for _, f := range []struct{ name, data, want string }{
		{"minilm.bin", table, tableSHA256},
		{"tokenizer.json", string(tokenizerJSON), tokenizerSHA256},
	} {
		sum := sha256.Sum256([]byte(f.data))
		if got := hex.EncodeToString(sum[:]); got != f.want {
			t.Errorf("%s has sha256 %s, want %s: if it changed on purpose, bump the @N of ID and update the pin", f.name, got, f.want)
		}
	}
}

func TestTable(t *testing.T) {
	v, err := static.Decode(table)
	if err != nil {
		t.Fatal(err)
	}
	if v.Table.Dim != 256 || v.Table.Rows != 30522 || v.Component != nil {
		t.Fatalf("dim %d, rows %d, component %d", v.Table.Dim, v.Table.Rows, len(v.Component))
	}
	for r, w := range map[int]string{0: "[PAD]", 1: "", 101: "[CLS]", 1996: "the", 2332: "king"} {
		if v.Words[r] != w {
			t.Errorf("row %d is %q, want %q", r, v.Words[r], w)
		}
	}
}

func cosine(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// TestSemantics checks that the distilled table carries meaning: a text
// is closer to a paraphrase than to an unrelated text, and words share
// nothing with text in a script the vocabulary lacks.
func TestSemantics(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if !m.EnglishOnly() {
		t.Error("EnglishOnly() = false")
	}
	if m.ID() != ID || m.Dim() != 256 {
		t.Errorf("ID %q, dim %d", m.ID(), m.Dim())
	}
	tests := []struct{ text, near, far string }{
		{"how do I sync my notes between devices", "synchronise the vault on a phone and a laptop", "banana bread recipe with walnuts"},
		{"car", "automobile", "philosophy"},
		{"the king", "a queen", "the carburettor"},
		{"protein folding", "amino acid structure", "tax return deadline"},
	}
	for _, tt := range tests {
		v, err := m.Embed(context.Background(), []string{tt.text, tt.near, tt.far}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		if n, f := cosine(v[0], v[1]), cosine(v[0], v[2]); n <= f {
			t.Errorf("%q: cosine %.3f with %q, %.3f with %q: want the paraphrase closer", tt.text, n, tt.near, f, tt.far)
		}
		var norm float64
		for _, x := range v[0] {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Errorf("%q: norm² %v", tt.text, norm)
		}
	}
	v, err := m.Embed(context.Background(), []string{"", "[UNK]"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		for _, x := range v[i] {
			if x != 0 {
				t.Fatalf("text %d: want a zero vector for a text without known tokens, got %v…", i, v[i][:4])
			}
		}
	}
}

func TestNewRejectsMismatch(t *testing.T) {
	v := &static.Vectors{Words: []string{"a"}, Table: static.Table{Dim: 2, Rows: 1, Vectors: []int8{1, 2}, Scales: []float32{1}}}
	var buf bytesBuffer
	if err := static.Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	if _, err := New("builtin:test@1/2", string(buf), tokenizerJSON); err == nil {
		t.Fatal("a 1-row table for a 30522-token tokenizer: no error")
	}
	if _, err := New("builtin:test@1/2", "not a table", tokenizerJSON); err == nil {
		t.Fatal("a corrupt table: no error")
	}
}

type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
