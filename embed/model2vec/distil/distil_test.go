package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// fakeForward is a deterministic stand-in for an encoder of width dim:
// position t of a sequence gets hidden[t][j] = id·(j+1) mod 7 + 10·t, so
// a pooled value says which ids were where.
func fakeForward(dim int, calls *[][][]int32) forwardFunc {
	return func(seqs [][]int32) ([]float32, []int, error) {
		if calls != nil {
			cp := make([][]int32, len(seqs))
			for i, s := range seqs {
				cp[i] = append([]int32(nil), s...)
			}
			*calls = append(*calls, cp)
		}
		off := []int{0}
		var hidden []float32
		for _, s := range seqs {
			for t, id := range s {
				for j := range dim {
					hidden = append(hidden, float32(int(id)*(j+1)%7+10*t))
				}
			}
			off = append(off, off[len(off)-1]+len(s))
		}
		return hidden, off, nil
	}
}

func TestTokenVectors(t *testing.T) {
	const dim, cls, sep = 3, 101, 102
	skip := []bool{false, true, false, false, false}
	var calls [][][]int32
	got, err := tokenVectors(context.Background(), fakeForward(dim, &calls), dim, skip, cls, sep, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 2 over the ids not skipped, each [SEP] id [CLS].
	wantCalls := [][][]int32{{{sep, 0, cls}, {sep, 2, cls}}, {{sep, 3, cls}, {sep, 4, cls}}}
	if len(calls) != len(wantCalls) {
		t.Fatalf("%d forward calls, want %d: %v", len(calls), len(wantCalls), calls)
	}
	for i := range calls {
		for k := range calls[i] {
			for p := range calls[i][k] {
				if calls[i][k][p] != wantCalls[i][k][p] {
					t.Fatalf("call %d = %v, want %v", i, calls[i], wantCalls[i])
				}
			}
		}
	}
	for id := range skip {
		for j := range dim {
			want := 0.0
			if !skip[id] { // mean over the three positions
				want = float64((sep*(j+1)%7+0)+(id*(j+1)%7+10)+(cls*(j+1)%7+20)) / 3
			}
			if g := got[id*dim+j]; math.Abs(g-want) > 1e-9 {
				t.Errorf("id %d dim %d = %v, want %v", id, j, g, want)
			}
		}
	}
}

func TestTokenVectorsBadEncoder(t *testing.T) {
	short := func(seqs [][]int32) ([]float32, []int, error) { return []float32{1}, []int{0, 1}, nil }
	if _, err := tokenVectors(context.Background(), short, 2, []bool{false}, 1, 2, 4, nil); err == nil {
		t.Fatal("an encoder returning too few values: no error")
	}
}

func TestJacobiEigen(t *testing.T) {
	a := []float64{4, 1, 2, 1, 3, 0, 2, 0, 5}
	orig := append([]float64(nil), a...)
	vals, vecs := jacobiEigen(a, 3)
	for c := range 3 {
		for i := range 3 {
			var av float64
			for k := range 3 {
				av += orig[i*3+k] * vecs[k*3+c]
			}
			if d := av - vals[c]*vecs[i*3+c]; math.Abs(d) > 1e-9 {
				t.Fatalf("column %d is not an eigenvector: residual %g", c, d)
			}
		}
	}
	if tr := vals[0] + vals[1] + vals[2]; math.Abs(tr-12) > 1e-9 {
		t.Errorf("eigenvalues sum to %v, want the trace 12", tr)
	}
}

// TestPCAKeepsDistances: rows that lie in a 2-dimensional affine plane of
// a 4-dimensional space keep their pairwise distances when projected on
// 2 components, come out centred, and skipped rows stay zero.
func TestPCAKeepsDistances(t *testing.T) {
	const dim, k = 4, 2
	base := [][2]float64{{0, 0}, {1, 2}, {3, -1}, {-2, 0.5}, {4, 4}, {0.5, -3}}
	u := []float64{0.5, 0.5, 0.5, 0.5}
	v := []float64{0.5, -0.5, 0.5, -0.5}
	skip := []bool{false, false, true, false, false, false, false}
	x := make([]float64, len(skip)*dim)
	b := 0
	for r := range skip {
		if skip[r] {
			for j := range dim {
				x[r*dim+j] = 100 // must not move the mean or the components
			}
			continue
		}
		for j := range dim {
			x[r*dim+j] = 7 + base[b][0]*u[j] + base[b][1]*v[j]
		}
		b++
	}
	out, err := pca(x, dim, skip, k)
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	sum := make([]float64, k)
	for r := range skip {
		if skip[r] {
			if out[r*k] != 0 || out[r*k+1] != 0 {
				t.Errorf("skipped row %d = %v, want zero", r, out[r*k:(r+1)*k])
			}
			continue
		}
		kept = append(kept, r)
		sum[0] += float64(out[r*k])
		sum[1] += float64(out[r*k+1])
	}
	if math.Abs(sum[0]) > 1e-4 || math.Abs(sum[1]) > 1e-4 {
		t.Errorf("projections sum to %v, want centred", sum)
	}
	for i, r := range kept {
		for _, s := range kept[i+1:] {
			var d4, d2 float64
			for j := range dim {
				d := x[r*dim+j] - x[s*dim+j]
				d4 += d * d
			}
			for j := range k {
				d := float64(out[r*k+j] - out[s*k+j])
				d2 += d * d
			}
			if math.Abs(math.Sqrt(d4)-math.Sqrt(d2)) > 1e-4 {
				t.Errorf("rows %d, %d: distance %v in the input, %v after PCA", r, s, math.Sqrt(d4), math.Sqrt(d2))
			}
		}
	}
	if _, err := pca(x, dim, skip, dim+1); err == nil {
		t.Error("more components than dimensions: no error")
	}
}

func TestApplySIF(t *testing.T) {
	const dim = 2
	skip := []bool{false, true, false, false}
	x := []float32{1, 1, 5, 5, 1, 1, 1, 1}
	applySIF(x, dim, skip, 1e-4)
	if x[2] != 5 || x[3] != 5 {
		t.Errorf("skipped row changed: %v", x[2:4])
	}
	// Ranks 0, 1, 2 among kept rows: p ∝ 1/2, 1/3, 1/4.
	z := 1.0/2 + 1.0/3 + 1.0/4
	for i, id := range []int{0, 2, 3} {
		p := 1 / (float64(i+2) * z)
		want := 1e-4 / (1e-4 + p)
		if g := float64(x[id*dim]); math.Abs(g-want) > 1e-7*want+1e-12 {
			t.Errorf("row %d weight %g, want %g", id, g, want)
		}
	}
	if !(x[0] < x[4] && x[4] < x[6]) {
		t.Errorf("weights %v, %v, %v: must grow with rank", x[0], x[4], x[6])
	}
}

// TestDistilWritesLoadableModels runs the whole distillation with the
// fake encoder and loads both outputs: the model2vec folder with package
// model2vec, the static file with package static.
func TestDistilWritesLoadableModels(t *testing.T) {
	vocab := []string{"[PAD]", "[unused0]", "[CLS]", "[SEP]", "[UNK]", "a", "b", "c", "alpha", "beta", "gamma", "delta", "##s", "word"}
	const dim, dims = 6, 3
	table, skip, err := distil(context.Background(), fakeForward(dim, nil), dim, vocab, 2, 3, params{dims: dims, sif: 1e-4, batch: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !skip[1] || skip[0] || skip[5] {
		t.Fatalf("skip = %v: want only [unused0]", skip)
	}
	dir := t.TempDir()
	tokJSON := miniTokenizer(t, vocab)
	meta := map[string]string{"source_model": "fake", "source_safetensors_sha256": "00ff"}
	out := filepath.Join(dir, "m2v")
	if err := writeFolder(out, table, len(vocab), params{dims: dims, sif: 1e-4}, tokJSON, meta, "F16"); err != nil {
		t.Fatal(err)
	}
	m, err := model2vec.Load(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != dims {
		t.Errorf("loaded dim %d, want %d", m.Dim(), dims)
	}
	vecs, err := m.Embed(context.Background(), []string{"alpha beta", "zzz"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := norm(vecs[0]); math.Abs(n-1) > 1e-5 {
		t.Errorf("norm of an embedded text %v, want 1", n)
	}
	st, err := os.ReadFile(filepath.Join(out, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !contains(st, `"source_safetensors_sha256":"00ff"`) {
		t.Error("the safetensors metadata does not record the source digest")
	}

	bin := filepath.Join(dir, "table.bin")
	if err := writeStatic(bin, table, skip, vocab, dims); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	v, err := static.Decode(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if v.Table.Rows != len(vocab) || v.Table.Dim != dims || v.Words[5] != "a" || v.Words[1] != "" || v.Table.Scales[1] != 0 {
		t.Fatalf("static file: rows %d dim %d words %q", v.Table.Rows, v.Table.Dim, v.Words)
	}
	for id := range vocab {
		if skip[id] {
			continue
		}
		row := make([]float32, dims)
		for j := range row {
			row[j] = float32(v.Table.Vectors[id*dims+j]) * v.Table.Scales[id]
		}
		if c := cos(row, table[id*dims:(id+1)*dims]); c < 0.999 {
			t.Errorf("row %d: cosine %v between the int8 row and the table", id, c)
		}
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cos(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d / (norm(a) * norm(b))
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

// miniTokenizer is a BERT tokenizer.json over vocab ([CLS] id 2, [SEP]
// id 3, [UNK] id 4).
func miniTokenizer(t *testing.T, vocab []string) []byte {
	t.Helper()
	ids := map[string]int{}
	for id, tok := range vocab {
		ids[tok] = id
	}
	doc := map[string]any{
		"added_tokens":   []any{},
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "cls": []any{"[CLS]", 2}, "sep": []any{"[SEP]", 3}},
		"model":          map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
