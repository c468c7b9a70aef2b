package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// enginePin is C1 as the engine ran it (pinConfident after the feedback
// fusion, before the boost).
func enginePin(w map[string]float64) fuser {
	return func(q *query) []rankers.Fused {
		var lists []rankers.Ranked
		for _, sig := range lexical {
			lists = append(lists, q.lists[sig])
		}
		return enginePinConfident(rrf(q, w), lists, w, confidentMargin, confidentLift)
	}
}

// expFrozen scores the fifth pass's three frozen candidates and the
// baselines: the default, BM25 alone and TF-IDF alone (boost on), C1 (the
// confident pin), C2 (C1 with feedback 0.25) and C3 (C1 without the
// boost).
func expFrozen(sets []*set) {
	def := defaultWeights()
	fb25 := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0.25 })
	table(sets, []string{"default", "bm25", "tfidf", "C1 pin", "C2 pin fb0.25"}, []fuser{weighted(def),
		weighted(map[string]float64{rankers.SignalBM25: 1}), weighted(map[string]float64{rankers.SignalTFIDF: 1}),
		enginePin(def), enginePin(fb25)})
	boostStrength = 0
	table(sets, []string{"C3 pin, no boost", "default, no boost"}, []fuser{enginePin(def), weighted(def)})
	boostStrength = rankers.BoostStrength
}

// expGap splits the pin's (C1's) shortfall against each single lexical
// signal into the part the boost causes (C1 without the boost is at least
// as good as the signal on that query) and the part fusion causes.
func expGap(sets []*set) {
	def := defaultWeights()
	c1 := enginePin(def)
	for _, s := range sets {
		for _, sig := range lexical {
			single := weighted(map[string]float64{sig: 1})
			var byBoost, byFusion float64
			var nb, nf int
			for _, q := range s.qs {
				withBoost := ndcg(q, boost(q, c1(q)))
				without := ndcg(q, c1(q))
				ref := ndcg(q, boost(q, single(q)))
				if ref <= withBoost {
					continue
				}
				if without >= ref {
					byBoost += ref - withBoost
					nb++
				} else {
					byFusion += ref - withBoost
					nf++
				}
			}
			n := float64(len(s.qs))
			fmt.Printf("%s vs %s: boost-caused %.4f (%d queries), fusion-caused %.4f (%d queries)\n",
				s.name, sig, byBoost/n, nb, byFusion/n, nf)
		}
	}
}
