package learned

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// topicCorpus repeats sentences of two topics that share no words.
func topicCorpus() []string {
	var texts []string
	coffee := []string{
		"espresso coffee beans roasted grinder crema",
		"coffee grinder burr espresso shot crema",
		"roasted beans coffee brew espresso barista",
		"barista brew coffee crema shot beans",
	}
	bikes := []string{
		"bicycle chain gears derailleur wheel saddle",
		"wheel spokes bicycle tyre pump saddle",
		"derailleur gears chain bicycle pedal tyre",
		"pump tyre wheel spokes pedal chain",
	}
	for i := 0; i < 12; i++ {
		texts = append(texts, coffee[i%len(coffee)], bikes[i%len(bikes)])
	}
	return texts
}

// row returns the dequantised vector of word's row.
func row(t *testing.T, v *static.Vectors, an *analysis.Analyzer, word string) []float64 {
	t.Helper()
	term := an.Term(word)
	for r, w := range v.Words {
		if w == term {
			d := v.Table.Dim
			out := make([]float64, d)
			for i, q := range v.Table.Vectors[r*d : (r+1)*d] {
				out[i] = float64(q) * float64(v.Table.Scales[r])
			}
			return out
		}
	}
	t.Fatalf("%q (term %q) not in the vocabulary %v", word, term, v.Words)
	return nil
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot, na, nb = dot+a[i]*b[i], na+a[i]*a[i], nb+b[i]*b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestLearnCooccurringWordsAreCloser(t *testing.T) {
	an := analysis.New()
	v, err := Learn(context.Background(), topicCorpus(), an, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ word, near, far string }{
		{"espresso", "grinder", "derailleur"},
		{"coffee", "barista", "bicycle"},
		{"bicycle", "spokes", "crema"},
		{"tyre", "pump", "beans"},
	}
	for _, tc := range tests {
		w := row(t, v, an, tc.word)
		near, far := cosine(w, row(t, v, an, tc.near)), cosine(w, row(t, v, an, tc.far))
		if near <= far {
			t.Errorf("cos(%s, %s) = %.3f, not above cos(%s, %s) = %.3f", tc.word, tc.near, near, tc.word, tc.far, far)
		}
	}
}

func TestLearnIsDeterministic(t *testing.T) {
	texts := topicCorpus()
	for _, opts := range []Options{{Dim: 8}, {Dim: 4, Window: 2, Seed: 7}} {
		var first []byte
		for run := 0; run < 3; run++ {
			v, err := Learn(context.Background(), texts, analysis.New(), opts)
			if err != nil {
				t.Fatal(err)
			}
			data, err := Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = data
			} else if !bytes.Equal(first, data) {
				t.Fatalf("options %+v: run %d encodes differently from run 0", opts, run)
			}
		}
	}
}

func TestLearnCJK(t *testing.T) {
	an := analysis.New()
	var texts []string
	for i := 0; i < 10; i++ {
		texts = append(texts, "咖啡豆研磨咖啡机浓缩咖啡", "自行车链条车轮轮胎打气", "咖啡机研磨浓缩", "自行车轮胎车轮")
	}
	v, err := Learn(context.Background(), texts, an, Options{Dim: 6})
	if err != nil {
		t.Fatal(err)
	}
	coffee, grind, tyre := row(t, v, an, "咖啡"), row(t, v, an, "研磨"), row(t, v, an, "轮胎")
	if c1, c2 := cosine(coffee, grind), cosine(coffee, tyre); c1 <= c2 {
		t.Errorf("cos(咖啡, 研磨) = %.3f, not above cos(咖啡, 轮胎) = %.3f", c1, c2)
	}
	m := modelOf(t, v, an)
	vecs, err := m.Embed(context.Background(), []string{"浓缩咖啡", "自行车轮胎"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, vec := range vecs {
		var norm float64
		for _, x := range vec {
			norm += float64(x) * float64(x)
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Errorf("text %d: |v|² = %v, want 1", i, norm)
		}
	}
}

func TestLearnTooSmall(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
	}{
		{"nil", nil},
		{"empty strings", []string{"", "  ", "\n"}},
		{"only stop words", []string{"the and of", "a an the"}},
		{"every term once", []string{"alpha beta gamma", "delta epsilon"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Learn(context.Background(), tc.texts, analysis.New(), Options{})
			if !errors.Is(err, ErrTooSmall) || v != nil {
				t.Fatalf("Learn = %v, %v; want nil, ErrTooSmall", v, err)
			}
		})
	}
}

func TestLearnCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Learn(ctx, topicCorpus(), analysis.New(), Options{Dim: 8}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNewRejectsGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("not a table"), bytes.Repeat([]byte{0}, 64)} {
		if _, err := New(data, analysis.New()); err == nil {
			t.Errorf("New(%q) succeeded", data)
		}
	}
}

func TestIDFollowsTheTable(t *testing.T) {
	an := analysis.New()
	ids := map[string]bool{}
	for _, opts := range []Options{{Dim: 8}, {Dim: 8, Seed: 99}, {Dim: 6}} {
		v, err := Learn(context.Background(), topicCorpus(), an, opts)
		if err != nil {
			t.Fatal(err)
		}
		m := modelOf(t, v, an)
		if !strings.HasPrefix(m.ID(), Alias+":ppmi-svd-") || ids[m.ID()] {
			t.Errorf("options %+v: ID %q is not a new vault model ID (seen %v)", opts, m.ID(), ids)
		}
		ids[m.ID()] = true
	}
}

func TestDocumentTitleCounts(t *testing.T) {
	an := analysis.New()
	v, err := Learn(context.Background(), topicCorpus(), an, Options{Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	m := modelOf(t, v, an)
	ctx := context.Background()
	doc := []string{"espresso grinder\nbicycle chain wheel spokes saddle pedal"}
	q, _ := m.Embed(ctx, []string{"espresso grinder"}, embed.Query)
	weighted, _ := m.Embed(ctx, doc, embed.Document)
	plain, _ := m.Model.Embed(ctx, doc, embed.Document)
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	if w, p := dot(q[0], weighted[0]), dot(q[0], plain[0]); w <= p {
		t.Errorf("query·document with the title counted %d times = %.3f, not above %.3f with it once", TitleCopies, w, p)
	}
	// Queries are embedded as they are.
	q2, _ := m.Model.Embed(ctx, []string{"espresso grinder"}, embed.Query)
	if dot(q[0], q2[0]) < 0.9999 {
		t.Error("a query's first line was weighted")
	}
}

// modelOf is the model learned vectors v make, through their encoding (as
// build-embeddings saves and serve loads them).
func modelOf(t *testing.T, v *static.Vectors, an *analysis.Analyzer) *Model {
	t.Helper()
	data, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(data, an)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
