package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// expRRFK sweeps RRF's k with the default weights, feedback included
// (earlier k sweeps predate the feedback vote).
func expRRFK(sets []*set) {
	var names []string
	var fs []fuser
	for _, k := range []float64{10, 20, 40, 60, 100, 200} {
		names = append(names, fmt.Sprintf("k %g", k))
		fs = append(fs, func(q *query) []rankers.Fused {
			w := defaultWeights()
			var lists []rankers.Ranked
			for _, sig := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalFeedback} {
				if l, ok := q.lists[sig]; ok {
					lists = append(lists, l)
				}
			}
			return rankers.Fuse(lists, k, w)
		})
	}
	table(sets, names, fs)
}
