package graph

import (
	"maps"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// BoostOptions bound the graph boost.
type BoostOptions struct {
	// Depth is how many of the top fused items take part (default 30).
	Depth int
	// Strength is the largest relative gain: an item's score grows by at
	// most Strength × its own score (default rankers.BoostStrength). It is
	// also the margin that makes another item "clearly better" (see Boost).
	Strength float64
}

// DefaultBoost is what obsidian_search uses.
var DefaultBoost = BoostOptions{Depth: rankers.BoostDepth, Strength: rankers.BoostStrength}

// Boost moves up items that other top items link to. Among the first Depth
// items, an item's gain is Strength × its score × w, where w (capped at 1)
// sums, over the distinct other notes among them that link to it, the
// linker's score relative to the best score divided by the linker's number
// of linked notes: a link from the best hit that links only here counts
// fully, a link from a weak hit or from a hub that links everywhere a
// little.
//
// The gain can never carry an item over one that is clearly better:
//   - whose fused score is at least (1+Strength) times its own (the bound
//     on the gain guarantees this), or
//   - that every signal which found the item also found, with a raw score
//     at least (1+Strength) times the item's (a signal-level clear win
//     that rank fusion alone would hide).
//
// Boost returns a new slice; scores are the boosted ones.
func (g *Graph) Boost(items []rankers.Fused, opts BoostOptions) []rankers.Fused {
	return BoostOver(g, items, opts)
}

// LinkSource is what the boost reads of a link graph: a [Graph], or the
// links of an eval --dump-lists record replayed offline.
type LinkSource interface {
	// Links reports whether note from links to note to.
	Links(from, to int) bool
	// OutDegree is the number of distinct notes from links to.
	OutDegree(from int) int
}

// BoostOver is [Graph.Boost] over any LinkSource.
func BoostOver(g LinkSource, items []rankers.Fused, opts BoostOptions) []rankers.Fused {
	if opts.Depth <= 0 {
		opts.Depth = DefaultBoost.Depth
	}
	if opts.Strength <= 0 {
		opts.Strength = DefaultBoost.Strength
	}
	out := slices.Clone(items)
	top := out[:min(opts.Depth, len(out))]
	if len(top) < 2 || top[0].Score <= 0 {
		return out
	}
	gains := linkWeights(g, top)
	final := make([]float64, len(top))
	for i, it := range top {
		final[i] = it.Score * (1 + opts.Strength*gains[i])
		for j := range i {
			if clearlyBetter(top[j], it, opts.Strength) {
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
		return 0 // equal: keep fused order
	})
	boosted := make([]rankers.Fused, len(top))
	for k, i := range order {
		boosted[k] = top[i]
		boosted[k].Score = final[i]
	}
	copy(top, boosted)
	return out
}

// linkWeights returns, per item, the capped relative score of the distinct
// other notes among items that link to the item's note.
func linkWeights(g LinkSource, items []rankers.Fused) []float64 {
	best := items[0].Score
	type linker struct {
		note  int
		score float64
	}
	// Items come best first, so a note's first item carries its best score.
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
			if l.note != it.Note && g.Links(l.note, it.Note) {
				// A reader of the linker follows this link with
				// probability 1/out-degree: a hub's many links each
				// say little.
				w[i] += l.score / best / float64(g.OutDegree(l.note))
			}
		}
		w[i] = min(w[i], 1)
	}
	return w
}

// clearlyBetter reports whether a beats b by a margin no boost may undo.
// The signal-level test consults the signals that found b whose scores are
// on a ratio scale (see ratioScale); only when b has none (a dense-only
// ranking) does it consult b's dense signal as well.
func clearlyBetter(a, b rankers.Fused, margin float64) bool {
	if a.Score >= (1+margin)*b.Score {
		return true
	}
	if len(b.Signals) == 0 {
		return false
	}
	all := !slices.ContainsFunc(slices.Collect(maps.Keys(b.Signals)), ratioScale)
	for sig, hb := range b.Signals {
		if !all && !ratioScale(sig) {
			continue
		}
		ha, ok := a.Signals[sig]
		if !ok || !dominates(ha.Score, hb.Score, margin) {
			return false
		}
	}
	return true
}

// ratioScale reports whether a signal's raw scores can testify to a clear
// win by their ratio. Lexical scores can: one note scoring 1.1× another
// says it matched the query's words clearly better. A dense cosine
// cannot: the similarities of a query to a vault's notes crowd into a
// narrow band (0.6–0.85 is typical), so 1.1× almost never happens, and a
// dense signal, which finds nearly every candidate, would switch the rule
// off for every pair it found at any weight — measured to cost most of
// what a small dense vote cost on the 13k-note vault.
//
// Nor can term proximity's bonus: it takes a few values (one per
// distance), so most pairs it found tie and it would veto the rule the
// same way; it only re-ranks what the lexical signals found, which
// testify for it.
func ratioScale(signal string) bool {
	return signal != rankers.SignalEmbeddings && signal != rankers.SignalProximity
}

func dominates(a, b, margin float64) bool {
	if b <= 0 {
		return a > 0
	}
	return a >= (1+margin)*b
}
