package search

import (
	"context"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// TestBM25ParamsPrecedence: the BM25 signal is asked for the forced k1 and
// b (Options.BM25) over the defaults.
func TestBM25ParamsPrecedence(t *testing.T) {
	var seen rankers.Request
	bm25 := &fakeRanker{name: rankers.SignalBM25, paths: []string{"Projects/Crawler.md"}, seen: &seen}
	e := engineWith(t, bm25)
	forced := func(p index.BM25Params) *Engine {
		opts := e.opts
		opts.BM25 = p
		return &Engine{snap: e.snap, graph: e.graph, an: e.an, chunks: e.chunks, tfidf: e.tfidf, rankers: e.rankers,
			extra: e.extra, opts: opts, gen: e.gen, savedPostings: e.savedPostings, state: e.state}
	}
	for _, tc := range []struct {
		name string
		eng  *Engine
		want index.BM25Params
	}{
		{"default", e, index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}},
		{"forced b", forced(index.BM25Params{K1: rankers.BM25K1, B: 0.5}), index.BM25Params{K1: rankers.BM25K1, B: 0.5}},
		{"forced b 0", forced(index.BM25Params{K1: rankers.BM25K1, B: 0}), index.BM25Params{K1: rankers.BM25K1, B: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.eng.BM25Params(); got != tc.want {
				t.Errorf("BM25Params() = %+v, want %+v", got, tc.want)
			}
			mustSearch(t, tc.eng, Request{Query: "crawler"})
			if seen.BM25 != tc.want {
				t.Errorf("the BM25 signal was asked for %+v, want %+v", seen.BM25, tc.want)
			}
		})
	}
}

// TestBM25ParamsSurviveUpdate: a live update or reload builds the next
// engine from the server's options, which carry the forced b; it must
// reach the new engine.
func TestBM25ParamsSurviveUpdate(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t)
	for _, tc := range []struct {
		name string
		opts Options
		want float64
	}{
		{"forced b", Options{BM25: index.BM25Params{K1: rankers.BM25K1, B: 0.5}}, 0.5},
		{"default", Options{}, rankers.BM25B},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := e.Update(ctx, e.Snapshot(), nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.BM25Params(); got.B != tc.want || got.K1 != rankers.BM25K1 {
				t.Errorf("after the update BM25 scores with %+v, want b %g", got, tc.want)
			}
		})
	}
}

// TestServerWeightsOverDefaults: the server's own weights (--rrf-weights)
// replace the defaults signal by signal.
func TestServerWeightsOverDefaults(t *testing.T) {
	e := testEngine(t)
	for _, tc := range []struct {
		name       string
		weights    map[string]float64
		bm25, tfid float64
	}{
		{"defaults", nil, rankers.WeightBM25, rankers.WeightTFIDF},
		{"server weights win", map[string]float64{rankers.SignalBM25: 5}, 5, rankers.WeightTFIDF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := e.opts
			o.Weights = tc.weights
			w := (&Engine{opts: o, snap: e.snap}).Weights()
			if w[rankers.SignalBM25] != tc.bm25 || w[rankers.SignalTFIDF] != tc.tfid {
				t.Errorf("weights %v, want bm25 %g tfidf %g", w, tc.bm25, tc.tfid)
			}
		})
	}
}

// noteIDs maps e's note paths to their ids, read when called (the fakes
// need the engine that owns them).
func noteIDs(e *Engine) func() map[string]int {
	return func() map[string]int {
		ids := map[string]int{}
		for i, n := range e.Snapshot().Notes {
			ids[n.Path] = i
		}
		return ids
	}
}
