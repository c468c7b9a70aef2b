package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// The learned linear fusion: a candidate's score is Σ w_f·feature_f over a
// handful of features per signal, fitted by coordinate ascent on the
// pooled tuning sets and checked leave-one-dataset-out.

var linSignals = []string{rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalFeedback, rankers.SignalEmbeddings}

// feature names: rr_<sig> = 61/(60+rank), ns_<sig> = score/top score,
// agree = both lexical signals rank it in their top 10.
func featureNames() []string {
	var out []string
	for _, s := range linSignals {
		out = append(out, "rr_"+s)
	}
	for _, s := range linSignals {
		out = append(out, "ns_"+s)
	}
	return append(out, "agree")
}

type cand struct {
	note, chunk int
	f           []float64
	signals     map[string]rankers.SignalHit
	byMask      map[int]map[string]rankers.SignalHit
}

// candidates caches each query's feature vectors.
var candCache = map[*query][]cand{}

const linDepth = 200

func candidates(q *query) []cand {
	if c, ok := candCache[q]; ok {
		return c
	}
	nf := len(featureNames())
	type key struct{ n, c int }
	idx := map[key]int{}
	var out []cand
	for si, sig := range linSignals {
		l := q.lists[sig]
		if len(l.Candidates) == 0 {
			continue
		}
		top := l.Candidates[0].Score
		for r, c := range l.Candidates[:min(linDepth, len(l.Candidates))] {
			k := key{c.Note, c.Chunk}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, cand{note: c.Note, chunk: c.Chunk, f: make([]float64, nf), signals: map[string]rankers.SignalHit{}})
			}
			if _, dup := out[i].signals[sig]; dup {
				continue
			}
			out[i].signals[sig] = rankers.SignalHit{Rank: r + 1, Score: c.Score}
			out[i].f[si] = 61 / (60 + float64(r+1))
			if top > 0 {
				out[i].f[len(linSignals)+si] = c.Score / top
			}
		}
	}
	for i := range out {
		b, okb := out[i].signals[rankers.SignalBM25]
		t, okt := out[i].signals[rankers.SignalTFIDF]
		if okb && okt && b.Rank <= 10 && t.Rank <= 10 {
			out[i].f[nf-1] = 1
		}
	}
	candCache[q] = out
	return out
}

// linear returns the fuser of weight vector w (a signal with no weight on
// any of its features does not count in a hit's signals).
func linear(w []float64) fuser {
	used, mask := map[string]bool{}, 0
	for si, s := range linSignals {
		used[s] = w[si] != 0 || w[len(linSignals)+si] != 0
		if used[s] {
			mask |= 1 << si
		}
	}
	return func(q *query) []rankers.Fused {
		cs := candidates(q)
		out := make([]rankers.Fused, 0, len(cs))
		for ci := range cs {
			c := &cs[ci]
			var s float64
			for i, x := range c.f {
				s += w[i] * x
			}
			sig, ok := c.byMask[mask]
			if !ok {
				sig = map[string]rankers.SignalHit{}
				for k, v := range c.signals {
					if used[k] {
						sig[k] = v
					}
				}
				if c.byMask == nil {
					c.byMask = map[int]map[string]rankers.SignalHit{}
				}
				c.byMask[mask] = sig
			}
			if len(sig) == 0 {
				continue
			}
			out = append(out, rankers.Fused{Note: c.note, Chunk: c.chunk, Score: s / 61, Signals: sig})
		}
		slices.SortFunc(out, func(a, b rankers.Fused) int {
			if a.Score != b.Score {
				return cmp.Compare(b.Score, a.Score)
			}
			if len(a.Signals) != len(b.Signals) {
				return cmp.Compare(len(b.Signals), len(a.Signals))
			}
			return cmp.Compare(a.Note, b.Note)
		})
		return out
	}
}

// floor, when set, maps a set to the score under which the objective is
// penalised (5× the shortfall beyond 0.001): a fit may not buy a gain on
// one set with a loss on another.
var floor map[*set]float64

func objective(sets []*set, w []float64) float64 {
	var sum float64
	for _, s := range sets {
		v, _ := score(s, linear(w))
		sum += v
		if f, ok := floor[s]; ok && v < f-0.001 {
			sum -= 5 * (f - 0.001 - v)
		}
	}
	return sum / float64(len(sets))
}

// fit runs coordinate ascent from w0 over the features not frozen.
func fit(sets []*set, w0 []float64, frozen map[int]bool) []float64 {
	w := slices.Clone(w0)
	best := objective(sets, w)
	steps := []float64{-1, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1}
	for round := 0; round < 4; round++ {
		improved := false
		for i := range w {
			if frozen[i] {
				continue
			}
			bi, bv := -1, best
			for si, d := range steps {
				t := slices.Clone(w)
				t[i] = math.Max(0, t[i]+d)
				if t[i] == w[i] {
					continue
				}
				if v := objective(sets, t); v > bv+1e-5 {
					bi, bv = si, v
				}
			}
			if bi >= 0 {
				w[i] = math.Max(0, w[i]+steps[bi])
				best = bv
				improved = true
			}
		}
		if !improved {
			break
		}
	}
	return w
}

func fmtW(w []float64) string {
	var parts []string
	for i, n := range featureNames() {
		if w[i] != 0 {
			parts = append(parts, fmt.Sprintf("%s=%g", n, w[i]))
		}
	}
	return strings.Join(parts, " ")
}

// expLinearFloor is expLinear with a penalty for any set falling below
// the default's score.
func expLinearFloor(all []*set) {
	floor = map[*set]float64{}
	nf := len(featureNames())
	w0 := make([]float64, nf)
	w0[0], w0[1], w0[2] = 2, 1, 0.5
	for _, s := range all {
		floor[s], _ = score(s, linear(w0))
	}
	expLinear(all)
}

// expLinear fits on every tuning set, then leave-one-dataset-out. The
// held-out sets (named cran and sfte in -sets) are never fitted on, only
// reported.
func expLinear(all []*set) {
	var tune, held []*set
	for _, s := range all {
		if s.name == "cran" || s.name == "sfte" {
			held = append(held, s)
		} else {
			tune = append(tune, s)
		}
	}
	nf := len(featureNames())
	w0 := make([]float64, nf)
	w0[0], w0[1], w0[2] = 2, 1, 0.5 // the default RRF
	frozenDense := map[int]bool{3: true, 7: true}
	for _, dense := range []bool{false, true} {
		frozen := frozenDense
		if dense {
			frozen = nil
		}
		fmt.Printf("== dense features %v\n", dense)
		w := fit(tune, w0, frozen)
		fmt.Println("all-tuning fit:", fmtW(w))
		table(all, []string{"default (linear w0)", "fitted"}, []fuser{linear(w0), linear(w)})
		for i, h := range tune {
			rest := slices.Delete(slices.Clone(tune), i, i+1)
			wl := fit(rest, w0, frozen)
			d, _ := score(h, linear(w0))
			v, _ := score(h, linear(wl))
			fmt.Printf("LODO %s: default %.4f fitted-without %.4f (%+.4f)  %s\n", h.name, d, v, v-d, fmtW(wl))
		}
	}
}
