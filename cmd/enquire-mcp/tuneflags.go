package main

import (
	"flag"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// defaultSelfTuneRule is the self-tuning rule the commands use unless
// --self-tune-rule says otherwise (search.Rule). Rule 2 (the weights with
// BM25's b) failed its pre-registered test on fresh blind sets by 0.0007
// nDCG@10 (docs/freeze-tune8.md, docs/benchmarks.md "Issue 12, eighth
// pass"), so rule 1 stays the default and rule 2 is selectable.
const defaultSelfTuneRule = search.RuleWeights

// tuneFlags choose the self-tuning rule and may force BM25's b (serve,
// serve-http, search, index, eval).
type tuneFlags struct {
	rule  int
	bm25B unitFlag
	// selfTune lets the vault's own queries choose the weights
	// (--self-tune); off, the default weights serve. noSelfTune is the
	// former switch, still accepted.
	selfTune, noSelfTune bool
	// proximity adds the term-proximity bonus to BM25's scores.
	proximity bool
}

// register adds --self-tune, --no-self-tune, --self-tune-rule, --bm25-b
// and --bm25-proximity.
func (t *tuneFlags) register(fs *flag.FlagSet) {
	t.registerSelfTune(fs)
	fs.IntVar(&t.rule, "self-tune-rule", int(defaultSelfTuneRule), fmt.Sprintf(
		"self-tuning rule (with --self-tune): %d chooses the BM25:TF-IDF weights from the vault's own link texts or headings, %d chooses them together with BM25's b (%v); see README",
		search.RuleWeights, search.RuleWeightsAndB, rankers.SelfTuneBM25Bs()))
	fs.BoolVar(&t.proximity, "bm25-proximity", rankers.DefaultBM25Proximity, fmt.Sprintf("add a term-proximity bonus to BM25's first %d candidates' scores for queries of two or more terms (see README; --bm25-proximity=false turns it off)", rankers.ProximityPool))
	fs.Var(&t.bm25B, "bm25-b", fmt.Sprintf("BM25's length normalisation b, 0-1, for every search, over the self-tuned choice (default: the self-tuned b, else %g)", rankers.BM25B))
}

// registerSelfTune adds --self-tune and --no-self-tune. Self-tuning is
// opt-in: on a held-out set its weights cost 3.6 points of nDCG@10
// against the defaults (docs/benchmarks.md), and it costs seconds per run.
func (t *tuneFlags) registerSelfTune(fs *flag.FlagSet) {
	fs.BoolVar(&t.selfTune, "self-tune", false, fmt.Sprintf("let the vault's own link texts or headings choose the BM25:TF-IDF weights (default: off, the weights bm25=%d,tfidf=%d; see README)", rankers.WeightBM25, rankers.WeightTFIDF))
	fs.BoolVar(&t.noSelfTune, "no-self-tune", false, "keep the default BM25:TF-IDF weights (the default; overrides --self-tune)")
}

// tuning says whether the vault's own queries choose the weights.
func (t *tuneFlags) tuning() bool { return t.selfTune && !t.noSelfTune }

// check rejects an unknown rule (0, in flags built by hand, means the
// default).
func (t *tuneFlags) check() error {
	if r := search.Rule(t.rule); r != 0 && r != search.RuleWeights && r != search.RuleWeightsAndB {
		return usageError("--self-tune-rule %d: want %d or %d", t.rule, search.RuleWeights, search.RuleWeightsAndB)
	}
	return nil
}

// bm25 is the engine's forced k1 and b: the zero value (the tuned or the
// default b) unless --bm25-b was given.
func (t *tuneFlags) bm25() index.BM25Params {
	if !t.bm25B.set {
		return index.BM25Params{}
	}
	return index.BM25Params{K1: rankers.BM25K1, B: t.bm25B.v}
}

// selfTuneRule is the rule in use; the zero flags (tests that build
// vaultFlags by hand) mean the default.
func (t *tuneFlags) selfTuneRule() search.Rule {
	if t.rule == 0 {
		return defaultSelfTuneRule
	}
	return search.Rule(t.rule)
}
