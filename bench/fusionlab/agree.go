package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// overlap is the share of BM25's first n notes that TF-IDF also has in
// its first n: how much the lexical signals agree on this query.
func overlap(q *query, n int) float64 {
	b, t := q.lists[rankers.SignalBM25].Candidates, q.lists[rankers.SignalTFIDF].Candidates
	in := map[int]bool{}
	for _, c := range t[:min(n, len(t))] {
		in[c.Note] = true
	}
	k := 0
	for _, c := range b[:min(n, len(b))] {
		if in[c.Note] {
			k++
		}
	}
	if len(b) == 0 {
		return 0
	}
	return float64(k) / float64(min(n, len(b)))
}

// expFeedbackAgree weighs the feedback vote by the lexical signals'
// agreement on their first notes (PRF is safe when the first pass is
// consistent), or gives it only above an agreement threshold.
func expFeedbackAgree(sets []*set) {
	names := []string{"default"}
	fs := []fuser{weighted(defaultWeights())}
	for _, n := range []int{5, 10} {
		for _, t := range []float64{0.2, 0.4, 0.6} {
			names = append(names, fmt.Sprintf("feedback only if overlap@%d ≥ %g", n, t))
			fs = append(fs, func(q *query) []rankers.Fused {
				w := defaultWeights()
				if overlap(q, n) < t {
					w[rankers.SignalFeedback] = 0
				}
				return rrf(q, w)
			})
		}
		for _, base := range []float64{0.5, 1} {
			names = append(names, fmt.Sprintf("w_fb = %g·overlap@%d", base, n))
			fs = append(fs, func(q *query) []rankers.Fused {
				w := defaultWeights()
				w[rankers.SignalFeedback] = base * overlap(q, n)
				return rrf(q, w)
			})
		}
	}
	table(sets, names, fs)
}
