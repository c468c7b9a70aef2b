package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// expBoost sweeps the graph boost's strength and depth under the default
// fusion and the single lexical signals.
func expBoost(sets []*set) {
	for _, d := range []int{10, 30} {
		for _, st := range []float64{0, 0.02, 0.05, 0.1, 0.2} {
			boostDepth, boostStrength = d, st
			fmt.Printf("-- depth %d strength %g\n", d, st)
			table(sets, []string{"default", "bm25", "tfidf"}, []fuser{weighted(defaultWeights()),
				weighted(map[string]float64{rankers.SignalBM25: 1}), weighted(map[string]float64{rankers.SignalTFIDF: 1})})
		}
	}
}
