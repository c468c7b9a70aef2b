package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// poolDense keeps the dense list's candidates that BM25 or TF-IDF ranks in
// its first n, in dense order (the dense model re-ranks the lexical pool).
func poolDense(q *query, n int) rankers.Ranked {
	in := map[int]bool{}
	for _, sig := range []string{rankers.SignalBM25, rankers.SignalTFIDF} {
		c := q.lists[sig].Candidates
		for _, x := range c[:min(n, len(c))] {
			in[x.Note] = true
		}
	}
	out := rankers.Ranked{Signal: rankers.SignalEmbeddings}
	for _, x := range q.lists[rankers.SignalEmbeddings].Candidates {
		if in[x.Note] {
			out.Candidates = append(out.Candidates, x)
		}
	}
	return out
}

// expDensePool: the vault-learned dense model as a small vote over the
// lexical pool only.
func expDensePool(sets []*set) {
	names := []string{"default"}
	fs := []fuser{weighted(defaultWeights())}
	for _, n := range []int{5, 10, 20} {
		for _, w := range []float64{0.1, 0.25, 0.5} {
			names = append(names, fmt.Sprintf("dense w %g over lexical top %d", w, n))
			fs = append(fs, func(q *query) []rankers.Fused {
				wt := defaultWeights()
				wt[rankers.SignalEmbeddings] = w
				lists := []rankers.Ranked{q.lists[rankers.SignalTFIDF], q.lists[rankers.SignalBM25], poolDense(q, n)}
				if fb, ok := q.lists[rankers.SignalFeedback]; ok {
					lists = append(lists, fb)
				}
				return rankers.Fuse(lists, rankers.DefaultRRFK, wt)
			})
		}
	}
	for _, w := range []float64{0.05, 0.1} {
		names = append(names, fmt.Sprintf("dense w %g, whole list", w))
		fs = append(fs, func(q *query) []rankers.Fused {
			wt := defaultWeights()
			wt[rankers.SignalEmbeddings] = w
			return rrf(q, wt)
		})
	}
	table(sets, names, fs)
}

// expDenseStrip: is the dense vote's cost in the fusion itself or in the
// boost's "clearly better" rule, which every extra signal weakens? Fuse
// with the dense vote, but hide it from the boost.
func expDenseStrip(sets []*set) {
	names := []string{"default"}
	fs := []fuser{weighted(defaultWeights())}
	strip := func(f []rankers.Fused) []rankers.Fused {
		for i := range f {
			if _, ok := f[i].Signals[rankers.SignalEmbeddings]; ok {
				s := map[string]rankers.SignalHit{}
				for k, v := range f[i].Signals {
					if k != rankers.SignalEmbeddings {
						s[k] = v
					}
				}
				f[i].Signals = s
			}
		}
		return f
	}
	for _, w := range []float64{0.05, 0.25, 1} {
		wt := defaultWeights()
		wt[rankers.SignalEmbeddings] = w
		names = append(names, fmt.Sprintf("dense w %g", w), fmt.Sprintf("dense w %g hidden from boost", w))
		fs = append(fs, weighted(wt), func(q *query) []rankers.Fused { return strip(rrf(q, wt)) })
	}
	table(sets, names, fs)
	boostDepth, boostStrength = 30, 0
	fmt.Println("-- no boost")
	table(sets, names, fs)
}

// expRule: the dense signal at small weights under the boost's rule
// (which consults the lexical signals only; the comparison with the old
// rule that consulted every signal is in docs/benchmarks.md, "Issue 12,
// fourth pass").
func expRule(sets []*set) {
	names := []string{"default"}
	fs := []fuser{weighted(defaultWeights())}
	for _, w := range []float64{0.05, 0.1, 0.25, 0.5, 1} {
		wt := defaultWeights()
		wt[rankers.SignalEmbeddings] = w
		names = append(names, fmt.Sprintf("vault dense w %g", w))
		fs = append(fs, weighted(wt))
	}
	names = append(names, "equal (1,1,1, no feedback)")
	fs = append(fs, weighted(map[string]float64{"bm25": 1, "tfidf": 1, "embeddings": 1}))
	table(sets, names, fs)
}

// expDenseAlone: the dense list ranked alone with the graph boost.
func expDenseAlone(sets []*set) {
	f := weighted(map[string]float64{rankers.SignalEmbeddings: 1})
	table(sets, []string{"vault dense alone"}, []fuser{f})
}
