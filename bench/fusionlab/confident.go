package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// expDenseConfident: the dense signal votes only for its first hit, and
// only when that hit's cosine leads the second by at least gap (a
// confident dense answer).
func expDenseConfident(sets []*set) {
	names := []string{"default"}
	fs := []fuser{weighted(defaultWeights())}
	for _, gap := range []float64{0.02, 0.05, 0.1} {
		for _, w := range []float64{0.5, 1, 2} {
			names = append(names, fmt.Sprintf("dense top-1 if gap ≥ %g, w %g", gap, w))
			fs = append(fs, func(q *query) []rankers.Fused {
				wt := defaultWeights()
				lists := []rankers.Ranked{q.lists[rankers.SignalTFIDF], q.lists[rankers.SignalBM25]}
				if fb, ok := q.lists[rankers.SignalFeedback]; ok {
					lists = append(lists, fb)
				}
				d := q.lists[rankers.SignalEmbeddings].Candidates
				if len(d) >= 2 && d[0].Score-d[1].Score >= gap {
					wt[rankers.SignalEmbeddings] = w
					lists = append(lists, rankers.Ranked{Signal: rankers.SignalEmbeddings, Candidates: d[:1]})
				}
				return rankers.Fuse(lists, rankers.DefaultRRFK, wt)
			})
		}
	}
	table(sets, names, fs)
}
