package main

import (
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// boost replays graph.Boost (graph/boost.go) over the dumped links: the
// same gains, caps and "clearly better" rule, with DefaultBoost's depth and
// strength.
func boost(q *query, items []rankers.Fused) []rankers.Fused {
	return boostWith(q, items, boostDepth, boostStrength)
}

// boostDepth and boostStrength are the boost's settings; experiments
// change them.
var boostDepth, boostStrength = rankers.BoostDepth, float64(rankers.BoostStrength)

func boostWith(q *query, items []rankers.Fused, depth int, strength float64) []rankers.Fused {
	if strength == 0 {
		return items
	}
	out := slices.Clone(items)
	top := out[:min(depth, len(out))]
	if len(top) < 2 || top[0].Score <= 0 {
		return out
	}
	gains := linkWeights(q, top)
	final := make([]float64, len(top))
	for i, it := range top {
		final[i] = it.Score * (1 + strength*gains[i])
		for j := range i {
			if clearlyBetter(top[j], it, strength) {
				final[i] = max(it.Score, min(final[i], final[j]))
			}
		}
	}
	order := make([]int, len(top))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case final[a] > final[b]:
			return -1
		case final[a] < final[b]:
			return 1
		}
		return 0
	})
	boosted := make([]rankers.Fused, len(top))
	for k, i := range order {
		boosted[k] = top[i]
		boosted[k].Score = final[i]
	}
	copy(top, boosted)
	return out
}

func linkWeights(q *query, items []rankers.Fused) []float64 {
	best := items[0].Score
	type linker struct {
		note  int
		score float64
	}
	var linkers []linker
	seen := map[int]bool{}
	for _, it := range items {
		if !seen[it.Note] {
			seen[it.Note] = true
			linkers = append(linkers, linker{it.Note, it.Score})
		}
	}
	w := make([]float64, len(items))
	for i, it := range items {
		for _, l := range linkers {
			if l.note != it.Note && q.links[l.note][it.Note] {
				w[i] += l.score / best / float64(q.OutDegree[l.note])
			}
		}
		w[i] = min(w[i], 1)
	}
	return w
}

// ignoreInRule names signals the "clearly better" rule does not consult.
var ignoreInRule = map[string]bool{}

func clearlyBetter(a, b rankers.Fused, margin float64) bool {
	if a.Score >= (1+margin)*b.Score {
		return true
	}
	if len(b.Signals) == 0 {
		return false
	}
	all := true
	for sig := range b.Signals {
		if !ignoreInRule[sig] {
			all = false
		}
	}
	for sig, hb := range b.Signals {
		if !all && ignoreInRule[sig] {
			continue
		}
		ha, ok := a.Signals[sig]
		if !ok || !dominates(ha.Score, hb.Score, margin) {
			return false
		}
	}
	return true
}

func dominates(a, b, margin float64) bool {
	if b <= 0 {
		return a > 0
	}
	return a >= (1+margin)*b
}
