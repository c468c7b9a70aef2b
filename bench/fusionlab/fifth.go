package main

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// The fifth pass: rules that let one signal's clear answer survive fusion
// (score-gap confidence), score-based fusion, and boost and feedback
// variants, measured on the hand-written sets next to the development
// sets.

// lexical are the signals whose top-score ratio can state confidence.
var lexical = []string{rankers.SignalBM25, rankers.SignalTFIDF}

// confidentTop returns the note a signal ranks first when its score leads
// the second note's by at least the ratio 1+margin, else -1.
func confidentTop(q *query, sig string, margin float64) int {
	c := q.lists[sig].Candidates
	if len(c) == 0 || c[0].Score <= 0 {
		return -1
	}
	if len(c) == 1 || c[0].Score >= (1+margin)*c[1].Score {
		return c[0].Note
	}
	return -1
}

// pinConfident lifts the fused item that a lexical signal ranks first with
// a clear score gap to the top of the fused list, with a score the boost
// cannot overtake ((1+BoostStrength)× the best). When two signals are
// confident about different notes nothing is pinned (agree) or the
// heavier signal wins (!agree).
func pinConfident(q *query, fused []rankers.Fused, w map[string]float64, margin float64, agree bool) []rankers.Fused {
	pin, pinW, voters := -1, 0.0, 0
	for _, sig := range lexical {
		n := confidentTop(q, sig, margin)
		if n < 0 || w[sig] == 0 {
			continue
		}
		voters++
		switch {
		case pin < 0:
			pin, pinW = n, w[sig]
		case pin != n && agree:
			return fused
		case pin != n && w[sig] > pinW:
			pin, pinW = n, w[sig]
		}
	}
	if pin < 0 || len(fused) == 0 {
		return fused
	}
	out := slices.Clone(fused)
	i := slices.IndexFunc(out, func(f rankers.Fused) bool { return f.Note == pin })
	if i < 0 {
		return out
	}
	it := out[i]
	if i == 0 {
		if (protectTop || protectBoth && voters == 2) && len(out) > 1 {
			out[0].Score = max(it.Score, pinLift*out[1].Score)
		}
		return out
	}
	it.Score = max(it.Score, pinLift*out[0].Score)
	copy(out[1:i+1], out[:i])
	out[0] = it
	return out
}

// combSum fuses by Σ w·score/top score over each list's first depth items.
func combSum(q *query, w map[string]float64, depth int) []rankers.Fused {
	type key struct{ n, c int }
	idx := map[key]int{}
	var out []rankers.Fused
	for _, sig := range linSignals {
		wt := w[sig]
		l := q.lists[sig].Candidates
		if wt == 0 || len(l) == 0 || l[0].Score <= 0 {
			continue
		}
		for r, c := range l[:min(depth, len(l))] {
			k := key{c.Note, c.Chunk}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, rankers.Fused{Note: c.Note, Chunk: c.Chunk, Signals: map[string]rankers.SignalHit{}})
			}
			out[i].Score += wt * c.Score / l[0].Score
			out[i].Signals[sig] = rankers.SignalHit{Rank: r + 1, Score: c.Score}
		}
	}
	slices.SortStableFunc(out, func(a, b rankers.Fused) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.Note, b.Note)
	})
	return out
}

func withW(mod func(map[string]float64)) map[string]float64 {
	w := defaultWeights()
	mod(w)
	return w
}

var strengths = []float64{0.05, 0.1}

// protectTop: pinConfident also lifts a confident note the fusion already
// ranks first (so the boost cannot pass it); pinLift is the pinned note's
// score over the former first's.
var (
	protectTop  = false
	protectBoth = false
	pinLift     = confidentLift
)

// afterBoost runs on the boosted list before scoring; experiments set it.
var afterBoost = func(q *query, l []rankers.Fused) []rankers.Fused { return l }

// pinAfter moves the confident lexical top-1 (see pinConfident) to the
// first place of the boosted list.
func pinAfter(m float64, agree bool) func(q *query, l []rankers.Fused) []rankers.Fused {
	return func(q *query, l []rankers.Fused) []rankers.Fused {
		return pinConfident(q, l, defaultWeights(), m, agree)
	}
}

func expPinAfter(sets []*set) {
	def := defaultWeights()
	noFB := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0 })
	for _, st := range strengths {
		boostStrength = st
		for _, m := range []float64{0, 0.05, 0.1, 0.2} {
			for _, agree := range []bool{true, false} {
				if m == 0 {
					if !agree {
						continue
					}
					afterBoost = func(q *query, l []rankers.Fused) []rankers.Fused { return l }
				} else {
					afterBoost = pinAfter(m, agree)
				}
				fmt.Printf("-- boost %g, pin after boost m%g agree=%v\n", st, m, agree)
				table(sets, []string{"default", "nofb", "bm25", "tfidf"}, []fuser{weighted(def), weighted(noFB),
					weighted(map[string]float64{rankers.SignalBM25: 1}), weighted(map[string]float64{rankers.SignalTFIDF: 1})})
			}
		}
	}
	boostStrength = rankers.BoostStrength
}

func expFifth(sets []*set) {
	def := defaultWeights()
	noFB := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0 })
	names := []string{"default", "bm25", "tfidf", "default nofb"}
	fs := []fuser{weighted(def), weighted(map[string]float64{rankers.SignalBM25: 1}),
		weighted(map[string]float64{rankers.SignalTFIDF: 1}), weighted(noFB)}
	for _, m := range []float64{0.05, 0.1, 0.2, 0.3, 0.5} {
		for _, agree := range []bool{true, false} {
			names = append(names, fmt.Sprintf("pin m%g agree=%v", m, agree))
			fs = append(fs, func(q *query) []rankers.Fused { return pinConfident(q, rrf(q, def), def, m, agree) })
		}
	}
	for _, d := range []int{20, 100, 500} {
		names = append(names, fmt.Sprintf("combsum d%d", d))
		fs = append(fs, func(q *query) []rankers.Fused { return combSum(q, def, d) })
	}
	for _, st := range strengths {
		boostStrength = st
		fmt.Printf("-- boost strength %g\n", st)
		table(sets, names, fs)
	}
	boostStrength = rankers.BoostStrength
}

// expFifthDiag lists the queries where a single lexical signal beats the
// pinned default, with the relevant notes' ranks per signal and the top
// two scores of each lexical signal.
func expFifthDiag(sets []*set) {
	def := defaultWeights()
	for _, s := range sets {
		for _, q := range s.qs {
			d := ndcg(q, boost(q, pinConfident(q, rrf(q, def), def, 0.1, true)))
			nb := ndcg(q, pinConfident(q, rrf(q, def), def, 0.1, true))
			t := ndcg(q, boost(q, rrf(q, map[string]float64{rankers.SignalTFIDF: 1})))
			b := ndcg(q, boost(q, rrf(q, map[string]float64{rankers.SignalBM25: 1})))
			if t <= d+1e-9 && b <= d+1e-9 {
				continue
			}
			row := fmt.Sprintf("%s %-40.40q pin %.2f noboost %.2f tf %.2f bm %.2f |", s.name, q.Text, d, nb, t, b)
			for _, sig := range linSignals[:3] {
				c := q.lists[sig].Candidates
				row += fmt.Sprintf(" %s:%s", sig[:2], relRanks(q, sig))
				if len(c) > 1 {
					row += fmt.Sprintf("(%.2f)", c[0].Score/c[1].Score)
				}
			}
			fmt.Println(row)
		}
	}
}

// mixFuse adds λ/(k+1) × the CombSUM score (Σ w·score/top over each list's
// first 100) to RRF: rank fusion with the score gaps as a tie-breaker that
// can grow into a reorder when one signal's lead is large.
func mixFuse(q *query, w map[string]float64, lambda float64) []rankers.Fused {
	r := rrf(q, w)
	cs := combSum(q, w, 100)
	type key struct{ n, c int }
	v := map[key]float64{}
	for _, f := range cs {
		v[key{f.Note, f.Chunk}] = f.Score
	}
	out := slices.Clone(r)
	for i := range out {
		out[i].Score += lambda / (rankers.DefaultRRFK + 1) * v[key{out[i].Note, out[i].Chunk}]
	}
	slices.SortStableFunc(out, func(a, b rankers.Fused) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

func expMix(sets []*set) {
	def := defaultWeights()
	fb25 := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0.25 })
	names := []string{"default", "fb0.25", "pin0.1 agree", "pin0.1 agree fb0.25"}
	fs := []fuser{weighted(def), weighted(fb25),
		func(q *query) []rankers.Fused { return pinConfident(q, rrf(q, def), def, 0.1, true) },
		func(q *query) []rankers.Fused { return pinConfident(q, rrf(q, fb25), fb25, 0.1, true) }}
	for _, lift := range []float64{1.1, 1.05, 1.000001} {
		for _, fw := range []float64{0.5, 0.25} {
			for _, m := range []float64{0.1, 0.15} {
				lift, fw, m := lift, fw, m
				w := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = fw })
				names = append(names, fmt.Sprintf("pin m%g lift %g fb %g", m, lift, fw))
				fs = append(fs, func(q *query) []rankers.Fused {
					pinLift = lift
					return pinConfident(q, rrf(q, w), w, m, true)
				})
			}
		}
	}
	for _, l := range []float64{} {
		names = append(names, fmt.Sprintf("rrf+%g·combsum", l))
		fs = append(fs, func(q *query) []rankers.Fused { return mixFuse(q, def, l) })
	}
	table(sets, names, fs)
}

// expAnchor: the graph boost counting only links whose text shares a query
// term, alone and with the confident pin.
func expAnchor(sets []*set) {
	def := defaultWeights()
	fb25 := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0.25 })
	pin := func(w map[string]float64) fuser {
		return func(q *query) []rankers.Fused { return pinConfident(q, rrf(q, w), w, 0.1, true) }
	}
	names := []string{"default", "bm25", "tfidf", "pin", "pin fb0.25"}
	fs := []fuser{weighted(def), weighted(map[string]float64{rankers.SignalBM25: 1}),
		weighted(map[string]float64{rankers.SignalTFIDF: 1}), pin(def), pin(fb25)}
	for _, st := range []float64{0.1, 0.2} {
		for _, mode := range []string{"", "anchor", "alias"} {
			boostStrength, linkMode = st, mode
			fmt.Printf("-- boost %g links %q\n", st, mode)
			table(sets, names, fs)
		}
	}
	boostStrength, linkMode = rankers.BoostStrength, ""
}

// expProtect: the pin, and whether it also protects a confident note the
// fusion already ranks first (never, when both lexical signals agree,
// always).
func expProtect(sets []*set) {
	def := defaultWeights()
	fb25 := withW(func(w map[string]float64) { w[rankers.SignalFeedback] = 0.25 })
	for _, mode := range []string{"never", "both", "always"} {
		protectTop, protectBoth = mode == "always", mode == "both"
		fmt.Printf("-- protect first: %s\n", mode)
		var names []string
		var fs []fuser
		for _, m := range []float64{0.1, 0.2} {
			for _, w := range []map[string]float64{def, fb25} {
				names = append(names, fmt.Sprintf("pin m%g fb%g", m, w[rankers.SignalFeedback]))
				fs = append(fs, func(q *query) []rankers.Fused { return pinConfident(q, rrf(q, w), w, m, true) })
			}
		}
		table(sets, names, fs)
	}
	protectTop, protectBoth = false, false
}

// expPinDiff lists the queries whose nDCG@10 the pin changes.
func expPinDiff(sets []*set) {
	def := defaultWeights()
	for _, s := range sets {
		var up, down int
		for _, q := range s.qs {
			d := ndcg(q, boost(q, rrf(q, def)))
			p := ndcg(q, boost(q, pinConfident(q, rrf(q, def), def, 0.1, true)))
			if p == d {
				continue
			}
			if p > d {
				up++
			} else {
				down++
			}
			fmt.Printf("%s %-40.40q default %.2f pin %.2f\n", s.name, q.Text, d, p)
		}
		fmt.Printf("%s: pin up %d, down %d\n", s.name, up, down)
	}
}
