package rankers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFusedNotesMatchesFuse compares FusedNotes with the first distinct
// notes of Fuse over random lists: repeated items within a list, two lists
// under one signal name, chunks of one note, equal scores (ties broken by
// signal count, best rank, note, chunk), missing and zero weights, k ≤ 0,
// and more signal names than a bit set holds.
func TestFusedNotesMatchesFuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	names := []string{SignalBM25, SignalTFIDF, SignalEmbeddings, SignalFeedback}
	for trial := range 3000 {
		nLists := rng.IntN(6)
		signals := names
		if trial%500 == 0 {
			signals = nil
			for i := range 70 {
				signals = append(signals, fmt.Sprintf("s%d", i))
			}
			nLists = 70
		}
		var lists []Ranked
		for range nLists {
			l := Ranked{Signal: signals[rng.IntN(len(signals))]}
			notes := 1 + rng.IntN(30) // few notes: many shared items and ties
			for range rng.IntN(40) {
				chunk := NoChunk
				if rng.IntN(3) == 0 {
					chunk = rng.IntN(3)
				}
				l.Candidates = append(l.Candidates, Candidate{Note: rng.IntN(notes), Chunk: chunk, Score: float64(rng.IntN(5))})
			}
			lists = append(lists, l)
		}
		weights := map[string]float64{SignalBM25: 1.5, SignalFeedback: 0.5, SignalEmbeddings: 0}
		if rng.IntN(4) == 0 {
			weights = nil
		}
		k := []float64{60, 0, -1, 1}[rng.IntN(4)]
		for _, n := range []int{0, 1, FeedbackDocs, 100} {
			want := firstNotes(Fuse(lists, k, weights), n, func(f Fused) int { return f.Note })
			if got := FusedNotes(lists, k, weights, n); !slices.Equal(got, want) {
				t.Fatalf("trial %d, k %v, n %d: %v, want %v (lists %v)", trial, k, n, got, want, lists)
			}
		}
	}
}
