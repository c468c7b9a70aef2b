package search

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// proximityEngines indexes two notes that BM25 and TF-IDF tie on "solar
// panel" (same terms, same counts, same lengths), the terms adjacent in
// the second only, and returns an engine without and one with
// Options.BM25Proximity.
func proximityEngines(t *testing.T) (plain, prox *Engine) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "Left.md", "panel roof wire grid meter solar\n")
	write(t, dir, "Right.md", "solar panel roof wire grid meter\n")
	snap, ix, _ := syncedIndex(t, dir)
	var err error
	an := analysis.New()
	if plain, err = New(ctx, snap, an, Options{Index: ix}); err != nil {
		t.Fatal(err)
	}
	if prox, err = New(ctx, snap, an, Options{Index: ix, BM25Proximity: true}); err != nil {
		t.Fatal(err)
	}
	return plain, prox
}

// TestProximityReordersABM25Tie checks that both uses of term proximity
// put the note with the query's terms adjacent above the one BM25 ties
// it with (and that without proximity they do tie, in note order).
func TestProximityReordersABM25Tie(t *testing.T) {
	plain, prox := proximityEngines(t)
	bm25 := []string{rankers.SignalBM25}
	base := mustSearch(t, plain, Request{Query: "solar panel", Signals: bm25, Limit: 10})
	if got := hitPaths(base); !slices.Equal(got, []string{"Left.md", "Right.md"}) {
		t.Fatalf("without proximity: hits %q, want the tie in note order", got)
	}
	if a, b := base.Hits[0].Signals[rankers.SignalBM25].Score, base.Hits[1].Signals[rankers.SignalBM25].Score; a != b {
		t.Fatalf("BM25 scores %v and %v: the fixture is meant to tie", a, b)
	}
	tied := base.Hits[0].Signals[rankers.SignalBM25].Score

	// (b) the bonus inside BM25's score: Right (δ 1) gains 0.80, Left
	// (panel … solar, δ 5) 0.022.
	res := mustSearch(t, prox, Request{Query: "solar panel", Signals: bm25, Limit: 10})
	if got := hitPaths(res); !slices.Equal(got, []string{"Right.md", "Left.md"}) {
		t.Fatalf("BM25 with proximity: hits %q, want Right.md first", got)
	}
	wantScores := []float64{tied + rankers.ProximityBonus(1), tied + rankers.ProximityBonus(5)}
	for i, w := range wantScores {
		if got := res.Hits[i].Signals[rankers.SignalBM25].Score; got != w {
			t.Errorf("hit %d BM25 score %v, want %v", i, got, w)
		}
	}

	// (a) the proximity signal ranks Right first, Left second; at twice
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
// term ranks and scores exactly as without proximity, in both uses and at
// both granularities.
func TestProximityLeavesSingleTermsAlone(t *testing.T) {
	plain, prox := proximityEngines(t)
	withSignal := map[string]float64{rankers.SignalProximity: 1}
	for _, q := range []string{"solar", "panel panels", "the solar"} {
		for _, gran := range []string{GranularityNote, GranularityBlock} {
			want := mustSearch(t, plain, Request{Query: q, Limit: 10, Granularity: gran})
			for name, got := range map[string]*Result{
				"bm25 bonus": mustSearch(t, prox, Request{Query: q, Limit: 10, Granularity: gran}),
				"signal":     mustSearch(t, plain, Request{Query: q, Limit: 10, Granularity: gran, Weights: withSignal}),
			} {
				if !reflect.DeepEqual(got.Hits, want.Hits) || !slices.Equal(got.SignalsUsed, want.SignalsUsed) {
					t.Errorf("%q %s, %s: hits %q (signals %q), want %q (signals %q)", q, gran, name,
						hitPaths(got), got.SignalsUsed, hitPaths(want), want.SignalsUsed)
				}
			}
		}
	}
}

// adjacentLoser is a BM25 stand-in that ranks a link query's answer
// first at 10 and the hub that holds the link (whose text has the
// query's two words adjacent) second at 9.5: within the proximity
// bonus of each other.
type adjacentLoser struct {
	answer map[string]string
	ids    func() map[string]int
}

func (f *adjacentLoser) Name() string { return rankers.SignalBM25 }

func (f *adjacentLoser) Rank(_ context.Context, req rankers.Request) ([]rankers.Candidate, error) {
	want, ok := f.answer[req.Query]
	if !ok {
		return nil, nil
	}
	ids := f.ids()
	return []rankers.Candidate{{Note: ids[want], Chunk: rankers.NoChunk, Score: 10},
		{Note: ids["Hub.md"], Chunk: rankers.NoChunk, Score: 9.5}}, nil
}

// TestSelfTuneIgnoresProximity: self-tuning chooses from BM25's own
// lists, so a vault makes the same choice with the proximity bonus on,
// although the bonus reorders BM25's list for every one of its queries.
func TestSelfTuneIgnoresProximity(t *testing.T) {
	ctx := context.Background()
	dir, answer := linkVault(t)
	f := &adjacentLoser{answer: answer}
	e, err := newEngine(ctx, dir, f)
	if err != nil {
		t.Fatal(err)
	}
	f.ids = noteIDs(e)
	prox := e.WithTuning(Tuning{})
	prox.opts.BM25Proximity = true
	lists, err := prox.SignalLists(ctx, Request{Query: "zeta marker07", Limit: 10, NoSnippets: true})
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(lists, func(l rankers.Ranked) bool { return l.Signal == rankers.SignalBM25 }); i < 0 ||
		prox.Snapshot().Notes[lists[i].Candidates[0].Note].Path != "Hub.md" {
		t.Fatalf("the bonus was meant to put Hub.md first in BM25's list: %+v", lists)
	}
	plain, err := e.SelfTune(ctx, RuleWeights)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Weights == nil {
		t.Fatalf("without the bonus BM25 alone finds the answers, so a weighting should be chosen: %+v", plain)
	}
	got, err := prox.SelfTune(ctx, RuleWeights)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, plain) {
		t.Fatalf("with the bonus on: %+v; without: %+v", got, plain)
	}
}
