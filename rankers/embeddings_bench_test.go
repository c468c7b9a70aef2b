package rankers

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// fixedModel embeds every query as one fixed unit vector.
type fixedModel struct{ v []float32 }

func (m fixedModel) ID() string { return "fixed" }
func (m fixedModel) Dim() int   { return len(m.v) }
func (m fixedModel) Embed(_ context.Context, texts []string, _ embed.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = m.v
	}
	return out, nil
}

func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// syntheticEmbeddings holds rows random unit vectors, chunksPerNote per
// note.
func syntheticEmbeddings(rows, dim, chunksPerNote int) *Embeddings {
	r := rand.New(rand.NewPCG(7, uint64(dim)))
	e := &Embeddings{model: fixedModel{unit(r, dim)}, alias: "fixed", dim: dim, nNotes: (rows + chunksPerNote - 1) / chunksPerNote}
	for i := range rows {
		scale, q := quantized(unit(r, dim))
		e.addRow(scale, q, int32(i/chunksPerNote), int32(i%chunksPerNote))
	}
	e.settle() // as LoadEmbeddings does
	return e
}

// BenchmarkEmbeddingsRank: exact cosine top-10 over every chunk vector,
// best chunk per note (targets: 50k × 384 ≤ 10 ms, 50k × 100 ≤ 3 ms).
func BenchmarkEmbeddingsRank(b *testing.B) {
	for _, size := range []struct{ rows, dim int }{{50000, 384}, {50000, 100}, {17311, 100}} {
		e := syntheticEmbeddings(size.rows, size.dim, 3)
		for _, block := range []bool{false, true} {
			b.Run(fmt.Sprintf("rows=%d/dim=%d/block=%v", size.rows, size.dim, block), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.Rank(context.Background(), Request{Query: "q", Limit: 10, Block: block}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestEmbeddingsRankExact(t *testing.T) {
	e := syntheticEmbeddings(999, 16, 3)
	got, err := e.Rank(context.Background(), Request{Query: "q", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Brute force: best chunk per note by a plain loop.
	q := e.model.(fixedModel).v
	best := map[int]float64{}
	for r := range e.notes {
		var s float64
		for j := range q {
			s += float64(q[j]) * float64(e.scales[r]*float32(e.vecs[r*e.dim+j]))
		}
		n := int(e.notes[r])
		if v, ok := best[n]; !ok || s > v {
			best[n] = s
		}
	}
	for i, c := range got {
		if math.Abs(c.Score-best[c.Note]) > 1e-5 {
			t.Fatalf("hit %d: note %d score %v, brute force %v", i, c.Note, c.Score, best[c.Note])
		}
		for n, s := range best {
			if s > c.Score+1e-6 && !containsNote(got[:i], n) {
				t.Fatalf("note %d (%.4f) should rank above note %d (%.4f)", n, s, c.Note, c.Score)
			}
		}
	}
	allowed, _ := e.Rank(context.Background(), Request{Query: "q", Limit: 5, Block: true, Allow: func(n int) bool { return n%2 == 0 }})
	for _, c := range allowed {
		if c.Note%2 != 0 || c.Chunk < 0 {
			t.Fatalf("filtered block hit %+v", c)
		}
	}
}

func containsNote(cs []Candidate, n int) bool {
	for _, c := range cs {
		if c.Note == n {
			return true
		}
	}
	return false
}
