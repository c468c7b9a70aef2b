package search

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// proximityEngine indexes two notes that BM25 and TF-IDF tie on "solar
// panel" (same terms, same counts, same lengths), the terms adjacent in
// the second only.
func proximityEngine(t *testing.T) *Engine {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "Left.md", "panel roof wire grid meter solar\n")
	write(t, dir, "Right.md", "solar panel roof wire grid meter\n")
	snap, ix, _ := syncedIndex(t, dir)
	plain, err := New(ctx, snap, analysis.New(), Options{Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// TestProximityReordersABM25Tie checks that the proximity signal puts
// the note with the query's terms adjacent above the one BM25 ties it
// with (and that without proximity they do tie, in note order).
func TestProximityReordersABM25Tie(t *testing.T) {
	plain := proximityEngine(t)
	bm25 := []string{rankers.SignalBM25}
	base := mustSearch(t, plain, Request{Query: "solar panel", Signals: bm25, Limit: 10})
	if got := hitPaths(base); !slices.Equal(got, []string{"Left.md", "Right.md"}) {
		t.Fatalf("without proximity: hits %q, want the tie in note order", got)
	}
	if a, b := base.Hits[0].Signals[rankers.SignalBM25].Score, base.Hits[1].Signals[rankers.SignalBM25].Score; a != b {
		t.Fatalf("BM25 scores %v and %v: the fixture is meant to tie", a, b)
	}
	// The proximity signal ranks Right first, Left second; at twice
	// BM25's weight that outvotes the order BM25 gave its tie:
	// Right 1/62 + 2/61 > Left 1/61 + 2/62.
	weights := map[string]float64{rankers.SignalBM25: 1, rankers.SignalTFIDF: 0, rankers.SignalFeedback: 0}
	fused := mustSearch(t, plain, Request{Query: "solar panel", Limit: 10, Weights: weights})
	if got := hitPaths(fused); !slices.Equal(got, []string{"Left.md", "Right.md"}) {
		t.Fatalf("fused without proximity: hits %q, want the tie in note order", got)
	}
	weights[rankers.SignalProximity] = 2
	fused = mustSearch(t, plain, Request{Query: "solar panel", Limit: 10, Weights: weights})
	if got := hitPaths(fused); !slices.Equal(got, []string{"Right.md", "Left.md"}) {
		t.Fatalf("fused with proximity: hits %q, want Right.md first", got)
	}
	for i, want := range []rankers.SignalHit{{Rank: 1, Score: rankers.ProximityBonus(1)}, {Rank: 2, Score: rankers.ProximityBonus(5)}} {
		if got := fused.Hits[i].Signals[rankers.SignalProximity]; got != want {
			t.Errorf("hit %d proximity %+v, want %+v", i, got, want)
		}
	}
	if !slices.Contains(fused.SignalsUsed, rankers.SignalProximity) {
		t.Errorf("signals_used %q lacks proximity", fused.SignalsUsed)
	}
}

// TestProximityLeavesSingleTermsAlone checks that a query of one distinct
// term ranks and scores exactly as without the proximity signal, at both
// granularities.
func TestProximityLeavesSingleTermsAlone(t *testing.T) {
	plain := proximityEngine(t)
	withSignal := map[string]float64{rankers.SignalProximity: 1}
	for _, q := range []string{"solar", "panel panels", "the solar"} {
		for _, gran := range []string{GranularityNote, GranularityBlock} {
			want := mustSearch(t, plain, Request{Query: q, Limit: 10, Granularity: gran})
			got := mustSearch(t, plain, Request{Query: q, Limit: 10, Granularity: gran, Weights: withSignal})
			if !reflect.DeepEqual(got.Hits, want.Hits) || !slices.Equal(got.SignalsUsed, want.SignalsUsed) {
				t.Errorf("%q %s: hits %q (signals %q), want %q (signals %q)", q, gran,
					hitPaths(got), got.SignalsUsed, hitPaths(want), want.SignalsUsed)
			}
		}
	}
}
