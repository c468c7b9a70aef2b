package rankers

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTopNotesEqualsTopK checks the streaming selection of topNotes
// against TopK over every note's best chunk, with many exact ties, a
// filter, a similarity floor and limits around the note count.
func TestTopNotesEqualsTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const nNotes, rows = 300, 1000
	e := &Embeddings{nNotes: nNotes, notes: make([]int32, rows)}
	scores := make([]float32, rows)
	for r := range rows {
		e.notes[r] = int32(rng.IntN(nNotes))
		scores[r] = float32(rng.IntN(40)) / 40 // few distinct values: ties
	}
	for _, req := range []Request{
		{Limit: 0}, {Limit: 1}, {Limit: 7}, {Limit: 50}, {Limit: 299}, {Limit: 300}, {Limit: 1000},
		{Limit: 20, Allow: func(n int) bool { return n%3 != 0 }},
		{Limit: 20, MinSimilarity: 0.5},
	} {
		best := map[int]float32{}
		for r, s := range scores {
			n := int(e.notes[r])
			if dropped(s, req) {
				continue
			}
			if b, ok := best[n]; !ok || s > b {
				best[n] = s
			}
		}
		var all []Candidate
		for n, s := range best {
			if req.Allow == nil || req.Allow(n) {
				all = append(all, Candidate{Note: n, Chunk: NoChunk, Score: float64(s)})
			}
		}
		want := TopK(all, req.Limit)
		if got := e.topNotes(scores, req); !slices.Equal(got, want) {
			t.Fatalf("limit %d: got %v, want %v", req.Limit, got, want)
		}
	}
}
