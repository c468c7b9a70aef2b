package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// TestReadVocab reads ids and special tokens from a tokenizer.json.
func TestReadVocab(t *testing.T) {
	vocab := []string{"[PAD]", "[unused0]", "[CLS]", "[SEP]", "[UNK]", "a"}
	got, cls, sep, err := readVocab(miniTokenizer(t, vocab))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(vocab) || got[5] != "a" || cls != 2 || sep != 3 {
		t.Fatalf("vocab %q, cls %d, sep %d", got, cls, sep)
	}
	if _, _, _, err := readVocab([]byte(`{"model": {"type": "Unigram", "vocab": []}}`)); err == nil {
		t.Error("a Unigram tokenizer: no error")
	}
}

// TestReproducesBuiltinTable distils the real all-MiniLM-L6-v2 again and
// compares the result with the table the binary embeds: the same
// vocabulary, every row at cosine ≥ 0.999 (the encoder's kernels may
// round differently on another CPU, and int8 rounding may flip). It
// takes a minute or two.
func TestReproducesBuiltinTable(t *testing.T) {
	root := os.Getenv("ENQUIRE_TEST_MODELS")
	if root == "" || testing.Short() {
		t.Skip("needs ENQUIRE_TEST_MODELS (scripts/fetch-models.sh) and no -short")
	}
	out := filepath.Join(t.TempDir(), "table.bin")
	if err := run(context.Background(), []string{"-model", filepath.Join(root, "all-MiniLM-L6-v2"), "-static", out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	read := func(p string) *static.Vectors {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		v, err := static.Decode(string(data))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	got, want := read(out), read(filepath.Join("..", "..", "minilm", "minilm.bin"))
	if got.Table.Rows != want.Table.Rows || got.Table.Dim != want.Table.Dim {
		t.Fatalf("%d×%d, the embedded table is %d×%d", got.Table.Rows, got.Table.Dim, want.Table.Rows, want.Table.Dim)
	}
	d := got.Table.Dim
	row := func(v *static.Vectors, r int) []float32 {
		x := make([]float32, d)
		for j := range x {
			x[j] = float32(v.Table.Vectors[r*d+j]) * v.Table.Scales[r]
		}
		return x
	}
	bad := 0
	for r := range got.Table.Rows {
		if got.Words[r] != want.Words[r] {
			t.Fatalf("row %d is %q, the embedded table's %q", r, got.Words[r], want.Words[r])
		}
		if want.Table.Scales[r] == 0 {
			continue
		}
		if c := cos(row(got, r), row(want, r)); c < 0.999 && bad < 10 {
			bad++
			t.Errorf("row %d (%q): cosine %v with the embedded table", r, got.Words[r], c)
		}
	}
}
