//go:build ort

package onnx

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// testLibrary is the ONNX Runtime library of the ort tests: $ENQUIRE_ORT_LIB
// (.ci/run fetches it from the npm package onnxruntime-node). The ort tag
// without it is a failure, not a skip.
func testLibrary(t testing.TB) string {
	t.Helper()
	lib := os.Getenv(LibraryEnv)
	if lib == "" {
		t.Fatalf("the ort tests need %s naming libonnxruntime (see .ci/run)", LibraryEnv)
	}
	return lib
}

func openEmbedder(t testing.TB, dir string, batch int) TextEmbedder {
	t.Helper()
	e, err := Open(context.Background(), dir, Options{Library: testLibrary(t), BatchSize: batch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// refVector pools the reference computation's output for one sequence of
// ids (special tokens included), as the model's pooling says, and
// L2-normalises it, all in float64.
func refVector(m *onnxgen.Model, ids []int64, cls bool) []float64 {
	one := make([]int64, len(ids))
	for i := range one {
		one[i] = 1
	}
	h := m.Forward([][]int64{ids}, [][]int64{make([]int64, len(ids))}, [][]int64{one})[0]
	v := make([]float64, m.Hidden)
	if cls {
		copy(v, h[0])
	} else {
		for _, row := range h {
			for i, x := range row {
				v[i] += x / float64(len(h))
			}
		}
	}
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	for i := range v {
		v[i] /= math.Sqrt(n)
	}
	return v
}

func maxDiff(got []float32, want []float64) float64 {
	d := 0.0
	for i := range want {
		d = max(d, math.Abs(float64(got[i])-want[i]))
	}
	return d
}

// TestEmbedMatchesReference compares the provider's vectors (tokenizer,
// ONNX Runtime, pooling, normalisation) with the reference computation on
// token ids written out by hand from bert-base-uncased's vocabulary.
func TestEmbedMatchesReference(t *testing.T) {
	m := generate(t, tiny(false))
	tests := []struct {
		alias, text string
		kind        embed.Kind
		ids         []int64
		cls         bool
	}{
		{"", "Hello, my dog is cute", embed.Document, []int64{101, 7592, 1010, 2026, 3899, 2003, 10140, 102}, false},
		{"", "hello", embed.Query, []int64{101, 7592, 102}, false},
		{"", "", embed.Document, []int64{101, 102}, false},
		// multilingual-e5-small's prefixes, mean pooling.
		{"multilingual-e5-small", "hello", embed.Query, []int64{101, 23032, 1024, 7592, 102}, false},
		{"multilingual-e5-small", "hello", embed.Document, []int64{101, 6019, 1024, 7592, 102}, false},
		// bge-small-en-v1.5 pools the [CLS] token; documents get no prefix.
		{"bge-small-en-v1.5", "Hello, my dog is cute", embed.Document, []int64{101, 7592, 1010, 2026, 3899, 2003, 10140, 102}, true},
	}
	for _, tt := range tests {
		t.Run(tt.alias+"/"+tt.kind.String()+"/"+tt.text, func(t *testing.T) {
			e := openEmbedder(t, folderFor(t, m, tt.alias), 8)
			got, err := e.Embed(context.Background(), []string{tt.text}, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if len(got[0]) != m.Hidden || e.Dim() != m.Hidden {
				t.Fatalf("dim %d / %d, want %d", len(got[0]), e.Dim(), m.Hidden)
			}
			if d := maxDiff(got[0], refVector(m, tt.ids, tt.cls)); d > 1e-4 {
				t.Errorf("max difference from the reference %.3g (want ≤ 1e-4)", d)
			}
		})
	}
}

// TestRawOutputMatchesReference checks ONNX Runtime's own
// last_hidden_state for a padded batch against the reference, position by
// position (padding positions excluded).
func TestRawOutputMatchesReference(t *testing.T) {
	m := generate(t, tiny(false))
	e := openEmbedder(t, folderFor(t, m, ""), 8).(*Embedder)
	seqs := []sequence{
		{ids: []int64{101, 7592, 2088, 102}, types: []int64{0, 0, 0, 0}},
		{ids: []int64{101, 7592, 1010, 2026, 3899, 2003, 10140, 102}, types: make([]int64, 8)},
		{ids: []int64{101, 102}, types: []int64{0, 0}},
	}
	b := pad(seqs, 0)
	got, shape, err := e.s.run(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(shape) != 3 || int(shape[0]) != 3 || int(shape[1]) != 8 || int(shape[2]) != m.Hidden {
		t.Fatalf("shape %v", shape)
	}
	worst := 0.0
	for r, s := range seqs {
		one := make([]int64, len(s.ids))
		for i := range one {
			one[i] = 1
		}
		want := m.Forward([][]int64{s.ids}, [][]int64{s.types}, [][]int64{one})[0]
		for c := range s.ids {
			for i := range m.Hidden {
				worst = max(worst, math.Abs(float64(got[(r*b.cols+c)*m.Hidden+i])-want[c][i]))
			}
		}
	}
	if worst > 1e-4 {
		t.Errorf("max difference from the reference %.3g (want ≤ 1e-4)", worst)
	}
}

// TestBatchingMatchesOneAtATime embeds texts of many lengths (some over
// the maximum) in batches of 8 and one at a time.
func TestBatchingMatchesOneAtATime(t *testing.T) {
	c := tiny(false)
	c.MaxPositions = 24
	m := generate(t, c)
	dir := folderFor(t, m, "")
	var texts []string
	words := strings.Fields("the quick brown fox jumps over the lazy dog while café owners in 東京 count résumés !")
	for i := range 21 {
		texts = append(texts, strings.Join(words[:1+(i*7)%len(words)], " ")+strings.Repeat(" again", i))
	}
	batched := openEmbedder(t, dir, 8)
	single := openEmbedder(t, dir, 1)
	for _, kind := range []embed.Kind{embed.Document, embed.Query} {
		all, err := batched.Embed(context.Background(), texts, kind)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			one, err := single.Embed(context.Background(), []string{text}, kind)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(one[0]))
			for k, x := range one[0] {
				want[k] = float64(x)
			}
			if d := maxDiff(all[i], want); d > 1e-5 {
				t.Errorf("text %d (%s): batched differs from alone by %.3g", i, kind, d)
			}
		}
	}
	if batched.Truncated() == 0 || batched.Truncated() != single.Truncated() {
		t.Errorf("truncated: batched %d, alone %d; want equal and > 0", batched.Truncated(), single.Truncated())
	}
}

// TestTruncation checks that a text over the maximum length is cut to its
// first MaxLength-2 tokens, and counted.
func TestTruncation(t *testing.T) {
	c := tiny(false)
	c.MaxPositions = 8 // MaxLength 8: [CLS] + 6 tokens + [SEP]
	m := generate(t, c)
	e := openEmbedder(t, folderFor(t, m, ""), 8)
	if e.MaxLength() != 8 {
		t.Fatalf("MaxLength %d, want 8", e.MaxLength())
	}
	got, err := e.Embed(context.Background(), []string{"Hello, my dog is cute and so on"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	want := refVector(m, []int64{101, 7592, 1010, 2026, 3899, 2003, 10140, 102}, false)
	if d := maxDiff(got[0], want); d > 1e-4 {
		t.Errorf("truncated vector differs from the reference by %.3g", d)
	}
	if e.Truncated() != 1 {
		t.Errorf("Truncated() = %d, want 1", e.Truncated())
	}
}

// TestRerankMatchesReference scores (query, passage) pairs with a
// cross-encoder and compares with the reference logits of the pairs'
// hand-written ids ([CLS] q [SEP] p [SEP], token types 0 then 1).
func TestRerankMatchesReference(t *testing.T) {
	m := generate(t, tiny(true))
	dir := folderFor(t, m, "ms-marco-MiniLM-L-6-v2")
	r, err := OpenReranker(context.Background(), dir, Options{Library: testLibrary(t), BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	passages := []string{"my dog is cute", "hello", "the quick brown fox"}
	pairs := [][]int64{
		{101, 3899, 102, 2026, 3899, 2003, 10140, 102},
		{101, 3899, 102, 7592, 102},
		{101, 3899, 102, 1996, 4248, 2829, 4419, 102},
	}
	got, err := r.Score(context.Background(), "dog", passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(passages) {
		t.Fatalf("%d scores for %d passages", len(got), len(passages))
	}
	for i, ids := range pairs {
		types, mask := make([]int64, len(ids)), make([]int64, len(ids))
		for k := range ids {
			mask[k] = 1
			if k > 2 {
				types[k] = 1
			}
		}
		want := m.Forward([][]int64{ids}, [][]int64{types}, [][]int64{mask})[0][0][0]
		if d := math.Abs(float64(got[i]) - want); d > 1e-4 {
			t.Errorf("passage %d: score %g, reference %g", i, got[i], want)
		}
	}
	if _, err := Open(context.Background(), dir, Options{Library: testLibrary(t)}); err == nil || !strings.Contains(err.Error(), "reranker model, not a embedding") {
		t.Errorf("opening a reranker as an embedder: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	lib := testLibrary(t)
	empty := t.TempDir()
	if _, err := Open(context.Background(), empty, Options{Library: lib}); err == nil || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("empty folder: %v", err)
	}
	dir := folderFor(t, generate(t, tiny(false)), "")
	if err := os.WriteFile(filepath.Join(dir, ModelFile), []byte("not onnx"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), dir, Options{Library: lib}); err == nil {
		t.Error("a corrupt model.onnx opened")
	}
	if _, err := Open(context.Background(), folderFor(t, generate(t, tiny(false)), ""), Options{Library: lib + ".other"}); err == nil || !strings.Contains(err.Error(), "already loaded") {
		t.Errorf("a second library: %v", err)
	}
}

// TestConcurrentEmbed embeds from several goroutines at once (runs are
// serialised per session; tokenization is not) and compares with a
// serial run.
func TestConcurrentEmbed(t *testing.T) {
	e := openEmbedder(t, folderFor(t, generate(t, tiny(false)), ""), 4)
	texts := []string{"hello world", "my dog is cute", "the quick brown fox", "café au lait", "東京", "x"}
	want, err := e.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			got, err := e.Embed(context.Background(), texts, embed.Document)
			if err != nil {
				errs <- err
				return
			}
			for i := range got {
				for k := range got[i] {
					if math.Abs(float64(got[i][k]-want[i][k])) > 1e-6 {
						errs <- fmt.Errorf("text %d differs in a concurrent run", i)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
