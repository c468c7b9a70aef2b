package rankers

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkEmbeddingsPrefilter: the dense stage over every vector and over
// the chunks of 2,000 notes only (about what two lexical lists of 1,000
// give), at the scale vault's 138k chunks.
func BenchmarkEmbeddingsPrefilter(b *testing.B) {
	for _, size := range []struct{ rows, dim int }{{138000, 100}, {138000, 384}} {
		e := syntheticEmbeddings(size.rows, size.dim, 3)
		within := make([]bool, e.nNotes)
		for n := 0; n < e.nNotes; n += e.nNotes / 2000 {
			within[n] = true
		}
		for _, w := range []struct {
			name string
			mask []bool
		}{{"all", nil}, {"prefiltered", within}} {
			b.Run(fmt.Sprintf("rows=%d/dim=%d/%s", size.rows, size.dim, w.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := e.Rank(context.Background(), Request{Query: "q", Limit: 100, Within: w.mask}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestEmbeddingsWithinAndMinSimilarity(t *testing.T) {
	e := syntheticEmbeddings(999, 16, 3)
	ctx := context.Background()
	all, err := e.Rank(ctx, Request{Query: "q", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	within := make([]bool, e.nNotes)
	for n := range within {
		within[n] = n%3 == 0
	}
	for _, block := range []bool{false, true} {
		got, err := e.Rank(ctx, Request{Query: "q", Limit: 1000, Within: within, Block: block})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatal("prefilter left nothing")
		}
		for _, c := range got {
			if !within[c.Note] {
				t.Fatalf("block=%v: note %d outside the prefilter", block, c.Note)
			}
		}
	}
	// The prefiltered note list is the full list restricted to the mask.
	pre, _ := e.Rank(ctx, Request{Query: "q", Limit: 1000, Within: within})
	var want []Candidate
	for _, c := range all {
		if within[c.Note] {
			want = append(want, c)
		}
	}
	if len(pre) != len(want) {
		t.Fatalf("prefiltered %d notes, want %d", len(pre), len(want))
	}
	for i := range pre {
		if pre[i] != want[i] {
			t.Fatalf("rank %d: %+v, want %+v", i, pre[i], want[i])
		}
	}
	const min = 0.3
	kept, _ := e.Rank(ctx, Request{Query: "q", Limit: 1000, MinSimilarity: min})
	n := 0
	for _, c := range all {
		if c.Score >= min {
			n++
		}
	}
	if len(kept) != n || n == 0 || n == len(all) {
		t.Fatalf("min_similarity kept %d of %d, want %d", len(kept), len(all), n)
	}
	for _, c := range kept {
		if c.Score < min {
			t.Fatalf("kept %+v below %v", c, min)
		}
	}
}

func TestChunkCosinesAgreeWithBlockRank(t *testing.T) {
	e := syntheticEmbeddings(300, 16, 3)
	ctx := context.Background()
	q, err := e.QueryVector(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := e.Rank(ctx, Request{Query: "q", Limit: 300, Block: true})
	for _, c := range blocks {
		got := e.ChunkCosines(q, c.Note)[c.Chunk]
		if float64(got) != c.Score {
			t.Fatalf("note %d chunk %d: %v vs block rank %v", c.Note, c.Chunk, got, c.Score)
		}
	}
	if e.ChunkCosines(q, -1) != nil || e.ChunkCosines(nil, 0) != nil {
		t.Fatal("out of range note or nil query must give nil")
	}
}
