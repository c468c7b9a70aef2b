package rankers

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// topTermsBySort is topTerms as it was: every term sorted, the first k.
func topTermsBySort(m map[string]float64, k int) []termWeight {
	out := make([]termWeight, 0, len(m))
	for term, w := range m {
		out = append(out, termWeight{term, w})
	}
	slices.SortFunc(out, compareTermWeights)
	return out[:min(max(k, 0), len(out))]
}

func TestTopTermsMatchesAFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var buf []termWeight
	for _, size := range []int{0, 1, 5, 29, 30, 31, 200, 3000} {
		for _, weights := range []string{"distinct", "ties", "few values"} {
			m := map[string]float64{}
			for i := range size {
				w := rng.Float64()
				switch weights {
				case "ties":
					w = float64(rng.IntN(5)) / 4 // many equal weights: the term decides
				case "few values":
					w = []float64{0, 1e-300, 2.5, 2.5000000000000004}[rng.IntN(4)]
				}
				m[fmt.Sprintf("t%05d", rng.IntN(1_000_000)+i)] = w
			}
			for _, k := range []int{0, 1, FeedbackTerms, size, size + 3} {
				want := topTermsBySort(m, k)
				buf = topTerms(m, k, buf) // reused, as Feedback reuses it
				if !slices.Equal(buf, want) {
					t.Errorf("%d terms (%s), k=%d: got %v, want %v", size, weights, k, buf, want)
				}
			}
		}
	}
}

// TestFeedbackScratchReusedConcurrently runs feedback for many queries from
// 8 goroutines on one index (the scratch is reused between calls and
// shared through the pool) and compares every answer with a fresh index's
// answer computed alone.
func TestFeedbackScratchReusedConcurrently(t *testing.T) {
	ctx := context.Background()
	snap, ref := fixtureTFIDF(t)
	_, shared := fixtureTFIDF(t)
	type q struct {
		query string
		fb    []int
	}
	var qs []q
	var want [][]Candidate
	for _, n := range snap.Notes {
		for _, f := range []string{n.Title, n.Title + " notes"} {
			first, err := ref.Rank(ctx, Request{Query: f, Limit: FeedbackDocs})
			if err != nil || len(first) == 0 {
				continue
			}
			var fb []int
			for _, c := range first {
				fb = append(fb, c.Note)
			}
			ref.fbTerms = newNoteTermCache() // a fresh scratch and cache for every reference answer
			got, err := ref.Feedback(ctx, Request{Query: f, Limit: 20}, snap.Notes, fb)
			if err != nil {
				t.Fatal(err)
			}
			qs, want = append(qs, q{f, fb}), append(want, got)
		}
	}
	if len(qs) < 20 {
		t.Fatalf("only %d feedback queries", len(qs))
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for k := range qs {
				i := (k + g*5) % len(qs)
				got, err := shared.Feedback(ctx, Request{Query: qs[i].query, Limit: 20}, snap.Notes, qs[i].fb)
				if err == nil && !slices.Equal(got, want[i]) {
					err = fmt.Errorf("goroutine %d, %q: %v, want %v", g, qs[i].query, got, want[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
