package rankers

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// referenceFuse is RRF written the plain way, one map of signal hits per
// item, kept as the oracle for the accumulator Fuse and FusedNotes share.
func referenceFuse(lists []Ranked, k float64, weights map[string]float64) []Fused {
	if k <= 0 {
		k = DefaultRRFK
	}
	type key struct{ note, chunk int }
	index := map[key]int{}
	var out []Fused
	for _, l := range lists {
		w, ok := weights[l.Signal]
		if !ok {
			w = 1
		}
		for r, c := range l.Candidates {
			kk := key{c.Note, c.Chunk}
			i, seen := index[kk]
			if !seen {
				i = len(out)
				index[kk] = i
				out = append(out, Fused{Note: c.Note, Chunk: c.Chunk, Signals: map[string]SignalHit{}})
			}
			if _, dup := out[i].Signals[l.Signal]; dup {
				continue
			}
			out[i].Score += w / (k + float64(r+1))
			out[i].Signals[l.Signal] = SignalHit{Rank: r + 1, Score: c.Score}
		}
	}
	best := func(f Fused) int {
		b := int(^uint(0) >> 1)
		for _, h := range f.Signals {
			b = min(b, h.Rank)
		}
		return b
	}
	slices.SortFunc(out, func(a, b Fused) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(len(b.Signals), len(a.Signals)),
			cmp.Compare(best(a), best(b)), cmp.Compare(a.Note, b.Note), cmp.Compare(a.Chunk, b.Chunk))
	})
	return out
}

// TestFuseMatchesReference compares Fuse and FusedNotes with referenceFuse
// over random lists: repeated items within a list, two lists under one
// signal name, chunks of one note, equal scores (ties broken by signal
// count, best rank, note, chunk), missing and zero weights, k ≤ 0, and
// many signal names.
func TestFuseMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	names := []string{SignalBM25, SignalTFIDF, SignalEmbeddings, SignalFeedback}
	for trial := range 3000 {
		lists := randomLists(rng, names, trial)
		weights := map[string]float64{SignalBM25: 1.5, SignalFeedback: 0.5, SignalEmbeddings: 0}
		if rng.IntN(4) == 0 {
			weights = nil
		}
		k := []float64{60, 0, -1, 1}[rng.IntN(4)]
		want := referenceFuse(lists, k, weights)
		got := Fuse(lists, k, weights)
		if !sameFused(got, want) {
			t.Fatalf("trial %d, k %v: Fuse %v, want %v (lists %v)", trial, k, got, want, lists)
		}
		for _, n := range []int{0, 1, FeedbackDocs, 100} {
			var notes []int
			for _, f := range want {
				if len(notes) < n && !slices.Contains(notes, f.Note) {
					notes = append(notes, f.Note)
				}
			}
			if got := FusedNotes(lists, k, weights, n); !slices.Equal(got, notes) {
				t.Fatalf("trial %d, k %v, n %d: FusedNotes %v, want %v (lists %v)", trial, k, n, got, notes, lists)
			}
		}
	}
}

func randomLists(rng *rand.Rand, names []string, trial int) []Ranked {
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
	return lists
}

// sameFused reports whether a and b hold the same items in the same order,
// with bit-identical scores and the same signal hits.
func sameFused(a, b []Fused) bool {
	return slices.EqualFunc(a, b, func(x, y Fused) bool {
		return x.Note == y.Note && x.Chunk == y.Chunk && x.Score == y.Score && maps.Equal(x.Signals, y.Signals)
	})
}
