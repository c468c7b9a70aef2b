package search

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scores   [][]float64
		best     int
		gain, tt float64
	}{
		{"nothing beats the default", [][]float64{{1, 0.5, 0}, {1, 0.5, 0}, {0.5, 0.5, 0}}, 0, 0, 0},
		{"a tie goes to the first", [][]float64{{0, 0, 0}, {1, 0, 0.5}, {1, 0.5, 0}}, 1, 0.5, 0.5 / (math.Sqrt(0.25) / math.Sqrt(3))},
		{"the best mean wins", [][]float64{{0.5, 0.5}, {0.5, 1}, {1, 0.8}}, 2, 0.4, 4},
		{"a constant gain is certain", [][]float64{{0, 0}, {1, 1}}, 1, 1, math.MaxFloat64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			best, gain, tt := decide(tc.scores)
			if best != tc.best || math.Abs(gain-tc.gain) > 1e-12 || !(tt == tc.tt || math.Abs(tt-tc.tt) < 1e-9) {
				t.Errorf("decide = %d, %g, %g; want %d, %g, %g", best, gain, tt, tc.best, tc.gain, tc.tt)
			}
		})
	}
}

// TestWeightsPrecedence: the self-tuned weights replace the defaults, and
// the server's own weights (--rrf-weights) replace both.
func TestWeightsPrecedence(t *testing.T) {
	e := testEngine(t)
	tuned := Tuning{Weights: map[string]float64{rankers.SignalBM25: 1, rankers.SignalTFIDF: 2, rankers.SignalFeedback: 0.5}, Why: "test"}
	for _, tc := range []struct {
		name       string
		eng        *Engine
		bm25, tfid float64
	}{
		{"defaults", e, rankers.WeightBM25, rankers.WeightTFIDF},
		{"tuned", e.WithTuning(tuned), 1, 2},
		{"server weights win", func() *Engine {
			o := e.opts
			o.Weights = map[string]float64{rankers.SignalBM25: 5}
			return (&Engine{opts: o, snap: e.snap}).WithTuning(tuned)
		}(), 5, rankers.WeightTFIDF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.eng.Weights()
			if w[rankers.SignalBM25] != tc.bm25 || w[rankers.SignalTFIDF] != tc.tfid {
				t.Errorf("weights %v, want bm25 %g tfidf %g", w, tc.bm25, tc.tfid)
			}
		})
	}
	if e.Tuning().Weights != nil {
		t.Error("WithTuning modified the engine it was called on")
	}
}

// TestSelfTuneFixture: on the fixture vault (2 piped links, 33 headings
// that prefer the default) the defaults stay, and a run from an already
// tuned engine decides from the defaults again.
func TestSelfTuneFixture(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t)
	first, err := e.SelfTune(ctx, RuleWeightsAndB)
	if err != nil {
		t.Fatal(err)
	}
	if first.Weights != nil || !strings.Contains(first.Why, "link queries (fewer than 20)") || !strings.Contains(first.Why, "heading queries") {
		t.Errorf("tuning %+v", first)
	}
	again, err := e.WithTuning(Tuning{Weights: map[string]float64{rankers.SignalTFIDF: 3}, Why: "x"}).SelfTune(ctx, RuleWeightsAndB)
	if err != nil {
		t.Fatal(err)
	}
	if again.Why != first.Why {
		t.Errorf("second run (from a tuned engine) says %q, first %q", again.Why, first.Why)
	}
}

// A certain gain (every query gains the same) must still be kept: the
// choice is stored as JSON, which has no infinities.
func TestTuningWithCertainGainEncodes(t *testing.T) {
	tu := Tuning{T: pairedT([]float64{1, 1, 1}, []float64{0, 0, 0}), Why: "chosen"}
	if _, err := json.Marshal(tu); err != nil {
		t.Fatalf("a certain gain's t does not encode: %v", err)
	}
}
