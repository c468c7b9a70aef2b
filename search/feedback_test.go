package search

import (
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Feedback is a second pass of the default search only: it runs unless the
// request names its signals without it or weighs it 0, and it never runs
// without a lexical first pass.
func TestFeedbackRunsByDefaultOnly(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		req  Request
		want bool
	}{
		{"default", Request{Query: "goroutines"}, true},
		{"blocks", Request{Query: "goroutines", Granularity: GranularityBlock}, true},
		{"named with it", Request{Query: "goroutines", Signals: []string{rankers.SignalTFIDF, rankers.SignalFeedback}}, true},
		{"named without it", Request{Query: "goroutines", Signals: []string{rankers.SignalTFIDF}}, false},
		{"weight 0", Request{Query: "goroutines", Weights: map[string]float64{rankers.SignalFeedback: 0}}, false},
		{"alone: no first pass", Request{Query: "goroutines", Signals: []string{rankers.SignalFeedback}}, false},
		{"nothing found", Request{Query: "zzzunknownword"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustSearch(t, e, tt.req)
			ran := slices.Contains(res.SignalsUsed, rankers.SignalFeedback)
			if ran != tt.want {
				t.Fatalf("feedback ran = %v, want %v (signals_used %q)", ran, tt.want, res.SignalsUsed)
			}
			if !ran {
				for _, h := range res.Hits {
					if _, ok := h.Signals[rankers.SignalFeedback]; ok {
						t.Fatalf("%s has a feedback rank though feedback did not run", h.Path)
					}
				}
				return
			}
			found := false
			for _, h := range res.Hits {
				_, ok := h.Signals[rankers.SignalFeedback]
				found = found || ok
			}
			if !found {
				t.Fatal("feedback ran but ranks no hit")
			}
		})
	}
}
