package search

import (
	"context"
	"fmt"
	"maps"
	"math"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/selftune"
)

// Tuning is the outcome of [Engine.SelfTune]: the lexical weights (and,
// under RuleWeightsAndB, BM25's b) a vault's own known-item queries chose,
// or none (the defaults stay) and why.
type Tuning struct {
	// Weights are the chosen BM25, TF-IDF and feedback weights; nil when
	// the defaults stay.
	Weights map[string]float64 `json:"weights,omitempty"`
	// BM25B is the chosen b of BM25; 0 when the default
	// (rankers.BM25B) stays.
	BM25B float64 `json:"bm25_b,omitempty"`
	// Kind is the query kind that decided (selftune.KindLink or
	// KindHeading), Queries how many there were, Gain the nDCG@10 the
	// chosen weights added over the default on them and T the paired t
	// statistic of that gain.
	Kind    string  `json:"kind,omitempty"`
	Queries int     `json:"queries,omitempty"`
	Gain    float64 `json:"gain,omitempty"`
	T       float64 `json:"t,omitempty"`
	// Why says in words what was chosen, or why nothing was.
	Why string `json:"why"`
}

// SelfTune chooses the vault's BM25:TF-IDF weighting (and, under
// RuleWeightsAndB, BM25's b) from the vault's own known-item queries
// (selftune.Build): the display texts of piped links (answer: the linked
// note), else, when those do not decide, headings (answer: their note).
// Each query runs once per b (SignalLists); every entry of the grid
// (rankers.SelfTuneBM25Weights) re-fuses its lists with the engine's
// fusion and graph boost and scores the answer's nDCG@10. The best
// weighting replaces the default only when it beats it with a paired t
// statistic ≥ rankers.SelfTuneMinT over at least SelfTuneMinQueries
// queries; under RuleWeightsAndB the best entry at another b then
// replaces that outcome only when it beats it with t ≥ SelfTuneMinT
// (see choose). Deterministic: the same vault gives the same choice. It
// costs one search per query and b (at most 2 × SelfTuneMaxQueries ×
// len(rankers.SelfTuneBM25Bs()) under rule 2).
func (e *Engine) SelfTune(ctx context.Context, rule Rule) (Tuning, error) {
	if rule != RuleWeights && rule != RuleWeightsAndB {
		return Tuning{}, fmt.Errorf("self-tuning rule %d: want %d or %d", rule, RuleWeights, RuleWeightsAndB)
	}
	// tune from the defaults, not a former choice or a forced b; and from
	// BM25's own lists, without the proximity bonus, so that a vault
	// chooses the same weights with it on or off (the bonus was measured
	// on top of those choices: docs/freeze-prox9.md)
	e = e.WithTuning(Tuning{})
	e.opts.BM25 = index.BM25Params{}
	e.opts.BM25Proximity = false
	why := ""
	for _, kind := range []string{selftune.KindLink, selftune.KindHeading} {
		qs := selftune.Build(e.snap, kind, rankers.SelfTuneMaxQueries)
		if len(qs) < rankers.SelfTuneMinQueries {
			why += fmt.Sprintf("%d %s queries (fewer than %d); ", len(qs), kind, rankers.SelfTuneMinQueries)
			continue
		}
		t, err := e.tuneOn(ctx, kind, qs, rule.bs())
		if err != nil {
			return Tuning{}, err
		}
		if t.Weights != nil {
			return t, nil
		}
		why += t.Why + "; "
	}
	return Tuning{Why: "default weights kept: " + why[:max(0, len(why)-2)]}, nil
}

// tuneEntry is one candidate of the self-tuning: weights at a b.
type tuneEntry struct {
	w map[string]float64
	b float64
}

// tuneOn scores the grid at every b of bs on one kind's queries.
func (e *Engine) tuneOn(ctx context.Context, kind string, qs []selftune.Query, bs []float64) (Tuning, error) {
	base := e.Weights()
	entries := []tuneEntry{{base, bs[0]}} // [0]: the default
	for _, b := range bs {
		for _, w := range selfTuneGrid(base) {
			entries = append(entries, tuneEntry{w, b})
		}
	}
	scores := make([][]float64, len(entries))
	for _, q := range qs {
		for _, b := range bs {
			lists, err := e.withBM25B(b).SignalLists(ctx, Request{Query: q.Text, Limit: MaxLimit, NoSnippets: true})
			if err != nil {
				if ctx.Err() != nil {
					return Tuning{}, ctx.Err()
				}
				lists = nil // a query the engine refuses scores 0 everywhere
			}
			for i, en := range entries {
				if en.b == b {
					scores[i] = append(scores[i], e.answerNDCG(lists, en.w, q.Target))
				}
			}
		}
	}
	return e.choose(kind, len(qs), entries, scores), nil
}

// decide picks from per-query scores (scores[0]: the default's, then one
// row per grid entry) the entry with the best mean, the first on a tie;
// 0 when none beats the default. gain is its mean over the default's and
// t the paired t statistic of the difference.
func decide(scores [][]float64) (best int, gain, t float64) {
	cands := make([]int, 0, len(scores)-1)
	for i := 1; i < len(scores); i++ {
		cands = append(cands, i)
	}
	return bestOf(scores, 0, cands)
}

// Tuning returns the self-tuned choice the engine searches with (zero
// when none was made).
func (e *Engine) Tuning() Tuning { return e.opts.Tuning }

// selfTuneGrid is base with each grid entry's BM25 and TF-IDF weights.
func selfTuneGrid(base map[string]float64) []map[string]float64 {
	var out []map[string]float64
	for _, bm := range rankers.SelfTuneBM25Weights() {
		w := maps.Clone(base)
		w[rankers.SignalBM25], w[rankers.SignalTFIDF] = bm, rankers.SelfTuneLexicalTotal-bm
		out = append(out, w)
	}
	return out
}

// answerNDCG fuses lists under weights as a search does (RRF, then the
// graph boost) and scores the one relevant note: 1/log2(rank+1) within
// the first 10, else 0.
func (e *Engine) answerNDCG(lists []rankers.Ranked, weights map[string]float64, target int) float64 {
	var use []rankers.Ranked
	for _, sig := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings, rankers.SignalFeedback} {
		if weights[sig] == 0 {
			continue
		}
		for _, l := range lists {
			if l.Signal == sig {
				use = append(use, l)
			}
		}
	}
	fused := e.graph.Boost(rankers.Fuse(use, e.opts.RRFK, weights), e.boost())
	for r, f := range fused[:min(10, len(fused))] {
		if f.Note == target {
			return 1 / math.Log2(float64(r)+2)
		}
	}
	return 0
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// pairedT is the paired t statistic of a − b: 0 when they never differ,
// ±MaxFloat64 when they differ by the same amount everywhere (finite, so
// that the kept choice encodes as JSON).
func pairedT(a, b []float64) float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	m, v := mean(d), 0.0
	for _, x := range d {
		v += (x - m) * (x - m)
	}
	switch {
	case m == 0 || len(d) < 2:
		return 0
	case v == 0:
		return math.Copysign(math.MaxFloat64, m)
	}
	return m / math.Sqrt(v/float64(len(d)-1)/float64(len(d)))
}

// WithTuning returns an engine like e that searches with t's weights and b
// (Options.Tuning), sharing e's immutable parts. e is not modified.
func (e *Engine) WithTuning(t Tuning) *Engine {
	opts := e.opts
	opts.Tuning = t
	return &Engine{snap: e.snap, graph: e.graph, an: e.an, chunks: e.chunks, tfidf: e.tfidf, rankers: e.rankers,
		extra: e.extra, opts: opts, gen: e.gen, savedMem: e.savedMem, state: e.state}
}
