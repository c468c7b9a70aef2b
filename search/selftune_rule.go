package search

import (
	"fmt"
	"math"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Rule is a version of the self-tuning rule: what [Engine.SelfTune]
// chooses from.
type Rule int

// The self-tuning rules. Both keep the default unless an alternative
// beats it with a paired t ≥ rankers.SelfTuneMinT on the vault's own
// queries.
const (
	// RuleWeights chooses the BM25:TF-IDF weighting only
	// (rankers.SelfTuneBM25Weights), BM25's b staying rankers.BM25B
	// (sixth session, docs/benchmarks.md "Issue 12, sixth pass").
	RuleWeights Rule = 1
	// RuleWeightsAndB chooses the weighting and b together: every
	// weighting at every b of rankers.SelfTuneBM25Bs (docs/benchmarks.md
	// "Issue 12, eighth pass").
	RuleWeightsAndB Rule = 2
)

// bs are the values of b the rule tries, the default first.
func (r Rule) bs() []float64 {
	if r == RuleWeightsAndB {
		return rankers.SelfTuneBM25Bs()
	}
	return []float64{rankers.BM25B}
}

// choose applies the rule to the scored entries (entries[0]: the default;
// entries at the default b first). Step 1 (rule 1): the best weighting at
// the default b replaces the default when its paired t against it is ≥
// rankers.SelfTuneMinT. Step 2 (rule 2, when entries hold other b
// values): the best entry at another b replaces step 1's outcome when its
// paired t against that outcome is ≥ SelfTuneMinT. So b moves only on
// strong evidence, and a vault whose b stays ranks as under rule 1.
func (e *Engine) choose(kind string, n int, entries []tuneEntry, scores [][]float64) Tuning {
	var atDefault, atOther []int
	for i := 1; i < len(entries); i++ {
		if entries[i].b == entries[0].b {
			atDefault = append(atDefault, i)
		} else {
			atOther = append(atOther, i)
		}
	}
	describe := func(i int, gain, t float64, over string) string {
		w := entries[i].w
		return fmt.Sprintf("bm25=%g tfidf=%g feedback=%g%s: +%.4f nDCG@10 over %s on %d %s queries, paired t %s",
			w[rankers.SignalBM25], w[rankers.SignalTFIDF], w[rankers.SignalFeedback], bDesc(len(atOther) > 0, entries[i].b), gain, over, n, kind, tDesc(t))
	}
	cur, why := 0, ""
	if best, gain, t := bestOf(scores, 0, atDefault); best == 0 {
		why = fmt.Sprintf("%d %s queries prefer the default weights", n, kind)
	} else if d := describe(best, gain, t, "the default"); t < rankers.SelfTuneMinT {
		why = fmt.Sprintf("best %s (t below %g)", d, rankers.SelfTuneMinT)
	} else {
		cur, why = best, "chosen "+d
	}
	out := e.tuningOf(kind, n, entries, scores, cur)
	if len(atOther) > 0 {
		over := "the default"
		if cur != 0 {
			over = "that choice"
		}
		best, gain, t := bestOf(scores, cur, atOther)
		switch {
		case best == cur:
			why += fmt.Sprintf(", then no other b beats %s", over)
		case t < rankers.SelfTuneMinT:
			why += fmt.Sprintf(", then best other b %s (t below %g)", describe(best, gain, t, over), rankers.SelfTuneMinT)
		default:
			why += ", then chosen " + describe(best, gain, t, over)
			out = e.tuningOf(kind, n, entries, scores, best)
		}
	}
	out.Why = why
	return out
}

// tuningOf is the Tuning of entry i (none for 0, the default), with its
// gain and t against the default.
func (e *Engine) tuningOf(kind string, n int, entries []tuneEntry, scores [][]float64, i int) Tuning {
	if i == 0 {
		return Tuning{}
	}
	w := entries[i].w
	out := Tuning{Weights: map[string]float64{rankers.SignalBM25: w[rankers.SignalBM25], rankers.SignalTFIDF: w[rankers.SignalTFIDF],
		rankers.SignalFeedback: w[rankers.SignalFeedback]}, Kind: kind, Queries: n,
		Gain: mean(scores[i]) - mean(scores[0]), T: pairedT(scores[i], scores[0])}
	if entries[i].b != rankers.BM25B {
		out.BM25B = entries[i].b
	}
	return out
}

// tDesc prints a paired t statistic; pairedT's stand-in for infinity (a
// gain the same on every query) as "inf".
func tDesc(t float64) string {
	if math.Abs(t) == math.MaxFloat64 {
		return "inf"
	}
	return fmt.Sprintf("%.2f", t)
}

// bDesc names b in a choice's description when the rule chooses it.
func bDesc(choosesB bool, b float64) string {
	if !choosesB {
		return ""
	}
	return fmt.Sprintf(" bm25_b=%g", b)
}

// bestOf picks among the rows cands of scores the one with the best mean
// (the first on a tie) when it beats row ref's mean; else it returns ref.
// gain is its mean over ref's and t the paired t statistic of the
// difference.
func bestOf(scores [][]float64, ref int, cands []int) (best int, gain, t float64) {
	best, bestMean := ref, mean(scores[ref])
	for _, i := range cands {
		if m := mean(scores[i]); m > bestMean {
			best, bestMean = i, m
		}
	}
	if best == ref {
		return ref, 0, 0
	}
	return best, bestMean - mean(scores[ref]), pairedT(scores[best], scores[ref])
}

// withBM25B returns an engine like e whose BM25 scores with b (and the
// default k1), whatever e's tuning or options say.
func (e *Engine) withBM25B(b float64) *Engine {
	out := e.WithTuning(e.opts.Tuning)
	out.opts.BM25 = index.BM25Params{K1: rankers.BM25K1, B: b}
	return out
}

// BM25Params are the k1 and b BM25 scores with: Options.BM25 when set,
// else the default k1 with the tuned b (Tuning.BM25B) when there is one,
// else rankers.BM25K1 and rankers.BM25B.
func (e *Engine) BM25Params() index.BM25Params {
	switch {
	case e.opts.BM25 != (index.BM25Params{}):
		return e.opts.BM25
	case e.opts.Tuning.BM25B > 0:
		return index.BM25Params{K1: rankers.BM25K1, B: e.opts.Tuning.BM25B}
	}
	return index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}
}
