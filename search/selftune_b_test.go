package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// TestBM25ParamsPrecedence: the BM25 signal is asked for the forced k1 and
// b (Options.BM25) over the tuned b, and for the tuned b over the default.
func TestBM25ParamsPrecedence(t *testing.T) {
	var seen rankers.Request
	bm25 := &fakeRanker{name: rankers.SignalBM25, paths: []string{"Projects/Crawler.md"}, seen: &seen}
	e := engineWith(t, bm25)
	forced := func(e *Engine, p index.BM25Params) *Engine {
		out := e.WithTuning(e.opts.Tuning)
		out.opts.BM25 = p
		return out
	}
	tuned := e.WithTuning(Tuning{BM25B: 0.3, Why: "test"})
	def := index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}
	for _, tc := range []struct {
		name string
		eng  *Engine
		want index.BM25Params
	}{
		{"default", e, def},
		{"tuned b", tuned, index.BM25Params{K1: rankers.BM25K1, B: 0.3}},
		{"tuned weights only", e.WithTuning(Tuning{Weights: map[string]float64{rankers.SignalBM25: 1}, Why: "w"}), def},
		{"forced over tuned", forced(tuned, index.BM25Params{K1: rankers.BM25K1, B: 0.5}), index.BM25Params{K1: rankers.BM25K1, B: 0.5}},
		{"forced b 0", forced(e, index.BM25Params{K1: rankers.BM25K1, B: 0}), index.BM25Params{K1: rankers.BM25K1, B: 0}},
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

// bSensitive is a BM25 stand-in that finds a link query's answer only at
// the b values in finds: elsewhere it returns other notes.
type bSensitive struct {
	answer map[string]string // query text → answer path
	finds  func(b float64) bool
	ids    func() map[string]int
}

func (f *bSensitive) Name() string { return rankers.SignalBM25 }

func (f *bSensitive) Rank(_ context.Context, req rankers.Request) ([]rankers.Candidate, error) {
	ids := f.ids()
	want, ok := f.answer[req.Query]
	if !ok {
		return nil, nil
	}
	var out []rankers.Candidate
	if f.finds(req.BM25.B) {
		out = append(out, rankers.Candidate{Note: ids[want], Chunk: rankers.NoChunk, Score: 10})
	} else {
		out = append(out, rankers.Candidate{Note: ids["Hub.md"], Chunk: rankers.NoChunk, Score: 10})
	}
	return out, nil
}

// linkVault writes a vault whose hub note links 30 notes with display
// texts their own text does not contain (so TF-IDF cannot find them):
// 30 link queries, each answered by BM25 stand-ins only.
func linkVault(t *testing.T) (dir string, answer map[string]string) {
	t.Helper()
	dir = t.TempDir()
	answer = map[string]string{}
	var hub strings.Builder
	for i := range 30 {
		name := fmt.Sprintf("Topic %02d", i)
		text := fmt.Sprintf("zeta marker%02d", i)
		answer[text] = name + ".md"
		fmt.Fprintf(&hub, "- [[%s|%s]]\n", name, text)
		body := fmt.Sprintf("# %s\n\nPlain words about subject number %d.\n", name, i)
		if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Hub.md"), []byte(hub.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, answer
}

// TestSelfTuneChoosesB: rule 2 adopts the b at which BM25 finds the
// vault's link answers, rule 1 cannot (it keeps b), and when b does not
// matter rule 2 keeps the default b.
func TestSelfTuneChoosesB(t *testing.T) {
	ctx := context.Background()
	dir, answer := linkVault(t)
	for _, tc := range []struct {
		name  string
		finds func(b float64) bool
		rule  Rule
		wantB float64 // 0: the default b stays
		tuned bool    // weights other than the default chosen
	}{
		{"rule 2, only b 0.3 finds", func(b float64) bool { return b == 0.3 }, RuleWeightsAndB, 0.3, true},
		{"rule 2, only b 0.5 finds", func(b float64) bool { return b == 0.5 }, RuleWeightsAndB, 0.5, true},
		{"rule 1, only b 0.3 finds", func(b float64) bool { return b == 0.3 }, RuleWeights, 0, false},
		{"rule 2, every b finds", func(float64) bool { return true }, RuleWeightsAndB, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &bSensitive{answer: answer, finds: tc.finds}
			e, err := newEngine(ctx, dir, f)
			if err != nil {
				t.Fatal(err)
			}
			f.ids = noteIDs(e)
			got, err := e.SelfTune(ctx, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if got.BM25B != tc.wantB || (got.Weights != nil) != tc.tuned {
				t.Fatalf("tuning %+v; want b %g, weights chosen %v", got, tc.wantB, tc.tuned)
			}
			if tc.tuned && (got.Kind != "link" || got.Queries != 30 || got.T < rankers.SelfTuneMinT || !strings.Contains(got.Why, fmt.Sprintf("bm25_b=%g", tc.wantB))) {
				t.Errorf("tuning %+v: want 30 link queries, t ≥ %g and b in why", got, rankers.SelfTuneMinT)
			}
			if want := tc.wantB; want > 0 && e.WithTuning(got).BM25Params().B != want {
				t.Errorf("the tuned engine scores BM25 with b %g, want %g", e.WithTuning(got).BM25Params().B, want)
			}
		})
	}
}

// TestSelfTuneRejectsUnknownRule: a rule number the engine does not know
// is an error, not a silent default.
func TestSelfTuneRejectsUnknownRule(t *testing.T) {
	for _, r := range []Rule{0, 3, -1} {
		if _, err := testEngine(t).SelfTune(context.Background(), r); err == nil {
			t.Errorf("rule %d: no error", r)
		}
	}
}

// TestChooseSteps: step 2 moves b only when it beats step 1's outcome
// (not merely the default) with t ≥ SelfTuneMinT.
func TestChooseSteps(t *testing.T) {
	e := testEngine(t)
	w := func(bm float64) map[string]float64 {
		return map[string]float64{rankers.SignalBM25: bm, rankers.SignalTFIDF: 3 - bm, rankers.SignalFeedback: 0.5}
	}
	// entries: 0 default (2:1 at 0.75), 1 = 1:2 at 0.75, 2 = 2:1 at 0.3, 3 = 1:2 at 0.3
	entries := []tuneEntry{{w(2), 0.75}, {w(1), 0.75}, {w(2), 0.3}, {w(1), 0.3}}
	zero := []float64{0, 0, 0, 0, 0, 0, 0, 0}
	for _, tc := range []struct {
		name    string
		scores  [][]float64
		wantBM  float64 // 0: no choice
		wantB   float64
		whyPart string
	}{
		{"step 1 only: b 0.3 beats the default but not 1:2", [][]float64{zero,
			{1, 1, 1, 1, 1, 1, 0, 1}, zero, {1, 1, 1, 1, 1, 1, 1, 1}}, 1, 0, "then best other b bm25=1 tfidf=2 feedback=0.5 bm25_b=0.3: +0.1250 nDCG@10 over that choice on 8 link queries, paired t 1.00 (t below 2)"},
		{"step 1 only: no other b beats its choice", [][]float64{zero,
			{1, 1, 1, 1, 1, 1, 0, 1}, zero, {1, 1, 1, 1, 1, 1, 1, 0}}, 1, 0, "paired t 7.00, then no other b beats that choice"},
		{"step 2 beats step 1's choice", [][]float64{zero,
			{1, 1, 1, 1, 0, 0, 0, 0}, zero, {1, 1, 1, 1, 1, 1, 1, 1}}, 1, 0.3, "then chosen bm25=1 tfidf=2 feedback=0.5 bm25_b=0.3"},
		{"step 1 keeps the default, step 2 moves b", [][]float64{zero,
			zero, {1, 1, 1, 1, 1, 1, 1, 1}, zero}, 2, 0.3, "prefer the default weights, then chosen bm25=2 tfidf=1 feedback=0.5 bm25_b=0.3: +1.0000 nDCG@10 over the default on 8 link queries, paired t inf"},
		{"nothing beats the default", [][]float64{zero, zero, zero, zero}, 0, 0, "then no other b beats the default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := e.choose("link", 8, entries, tc.scores)
			if got.Weights[rankers.SignalBM25] != tc.wantBM || got.BM25B != tc.wantB || !strings.Contains(got.Why, tc.whyPart) {
				t.Errorf("choose = %+v; want bm25 %g, b %g, why containing %q", got, tc.wantBM, tc.wantB, tc.whyPart)
			}
		})
	}
}

// TestBM25ParamsSurviveUpdate: a live update or reload builds the next
// engine from the server's options, which carry the tuned and the forced
// b; both must reach the new engine.
func TestBM25ParamsSurviveUpdate(t *testing.T) {
	ctx := context.Background()
	e := testEngine(t)
	for _, tc := range []struct {
		name string
		opts Options
		want float64
	}{
		{"tuned b", Options{Tuning: Tuning{BM25B: 0.3, Why: "x"}}, 0.3},
		{"forced b over tuned", Options{Tuning: Tuning{BM25B: 0.3, Why: "x"}, BM25: index.BM25Params{K1: rankers.BM25K1, B: 0.5}}, 0.5},
		{"neither", Options{}, rankers.BM25B},
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

// noteIDs maps e's note paths to their ids, read when called (the fakes
// above need the engine that owns them).
func noteIDs(e *Engine) func() map[string]int {
	return func() map[string]int {
		ids := map[string]int{}
		for i, n := range e.Snapshot().Notes {
			ids[n.Path] = i
		}
		return ids
	}
}
