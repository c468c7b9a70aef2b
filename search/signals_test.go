package search

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fakeRanker returns fixed note paths (or an error) as one signal.
type fakeRanker struct {
	name  string
	paths []string
	err   error
	snap  func() map[string]int
	seen  *rankers.Request
}

func (f *fakeRanker) Name() string { return f.name }

func (f *fakeRanker) Rank(_ context.Context, req rankers.Request) ([]rankers.Candidate, error) {
	if f.seen != nil {
		*f.seen = req
	}
	if f.err != nil {
		return nil, f.err
	}
	ids := f.snap()
	var out []rankers.Candidate
	for i, p := range f.paths {
		n := ids[p]
		if req.Allow != nil && !req.Allow(n) {
			continue
		}
		out = append(out, rankers.Candidate{Note: n, Chunk: rankers.NoChunk, Score: float64(100 - i)})
	}
	return out[:min(len(out), req.Limit)], nil
}

func engineWith(t *testing.T, extra ...*fakeRanker) *Engine {
	t.Helper()
	base := testEngine(t)
	ids := noteIDs(base)()
	var rs []rankers.Ranker
	for _, f := range extra {
		f.snap = func() map[string]int { return ids }
		rs = append(rs, f)
	}
	e, err := New(context.Background(), base.Snapshot(), base.an, Options{}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestMinSignalsWithASecondSignal(t *testing.T) {
	bm25 := &fakeRanker{name: rankers.SignalBM25, paths: []string{"Projects/Crawler.md", "Cooking/Sourdough Bread.md", "Software/Go Concurrency.md"}}
	e := engineWith(t, bm25)
	res := mustSearch(t, e, Request{Query: "goroutines", MinSignals: 2})
	got := hitPaths(res)
	slices.Sort(got)
	// Sourdough Bread is only in the fake list; the others are in both.
	if want := []string{"Projects/Crawler.md", "Software/Go Concurrency.md"}; !slices.Equal(got, want) {
		t.Fatalf("min_signals 2 = %q, want %q", got, want)
	}
	if res.TotalCandidates != 2 {
		t.Fatalf("total_candidates = %d, want 2 (after the min_signals filter)", res.TotalCandidates)
	}
	for _, h := range res.Hits {
		if _, ok := h.Signals[rankers.SignalBM25]; !ok {
			t.Errorf("%s lacks its bm25 rank", h.Path)
		}
		if _, ok := h.Signals[rankers.SignalTFIDF]; !ok {
			t.Errorf("%s lacks its tfidf rank", h.Path)
		}
	}
	// feedback, the second TF-IDF pass, runs by default but is no witness
	// for min_signals (the filter above counted bm25 and tfidf only).
	if !slices.Equal(res.SignalsUsed, []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalFeedback}) {
		t.Fatalf("signals_used = %q", res.SignalsUsed)
	}
	all := mustSearch(t, e, Request{Query: "goroutines"})
	if !slices.Contains(hitPaths(all), "Cooking/Sourdough Bread.md") {
		t.Fatal("min_signals 1 must keep single-signal hits")
	}
}

func TestFilterReachesEverySignal(t *testing.T) {
	var seen rankers.Request
	bm25 := &fakeRanker{name: rankers.SignalBM25, paths: []string{"Projects/Crawler.md", "Cooking/Sourdough Bread.md"}, seen: &seen}
	e := engineWith(t, bm25)
	res := mustSearch(t, e, Request{Query: "goroutines bread", Folder: "Cooking", Limit: 3, Granularity: GranularityNote})
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.Path, "Cooking/") {
			t.Fatalf("hit %s escaped the folder filter", h.Path)
		}
	}
	if seen.Allow == nil || seen.Limit < 100 || seen.Query != "goroutines bread" {
		t.Fatalf("ranker saw %+v: want the filter, depth >= 100 and the query", seen)
	}
}

func TestFailingSignalIsReportedNotFatal(t *testing.T) {
	broken := &fakeRanker{name: rankers.SignalEmbeddings, err: errors.New("model file missing")}
	e := engineWith(t, broken)
	res := mustSearch(t, e, Request{Query: "sourdough"})
	if len(res.Hits) == 0 || res.Hits[0].Path != "Cooking/Sourdough Bread.md" {
		t.Fatalf("hits = %q", hitPaths(res))
	}
	if msg := res.SignalErrors[rankers.SignalEmbeddings]; !strings.Contains(msg, "model file missing") {
		t.Fatalf("signal_errors = %v", res.SignalErrors)
	}
	if slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) {
		t.Fatal("a failed signal is listed as used")
	}
}

func TestInvalidFromASignalIsTheCallersError(t *testing.T) {
	picky := &fakeRanker{name: rankers.SignalEmbeddings, err: invalid("embedding_model %q does not match the index (built with %q)", "x", "y")}
	e := engineWith(t, picky)
	if _, err := e.Search(context.Background(), Request{Query: "bread", EmbeddingModel: "x"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

func TestRequestedButUnavailableSignal(t *testing.T) {
	e := testEngine(t)
	res := mustSearch(t, e, Request{Query: "bread", Signals: []string{rankers.SignalTFIDF, rankers.SignalBM25}})
	if !strings.Contains(res.SignalErrors[rankers.SignalBM25], "unavailable") {
		t.Fatalf("signal_errors = %v, want bm25 unavailable", res.SignalErrors)
	}
	if !slices.Equal(res.SignalsUsed, []string{rankers.SignalTFIDF}) {
		t.Fatalf("signals_used = %q", res.SignalsUsed)
	}
	if _, err := e.Search(context.Background(), Request{Query: "bread", Signals: []string{rankers.SignalBM25}}); err != nil {
		t.Fatalf("only-unavailable signals: %v", err)
	}
}

func TestPanickingSignalIsContained(t *testing.T) {
	e := engineWith(t, &fakeRanker{name: rankers.SignalBM25}) // snap set, paths nil
	e.rankers[1] = panicRanker{}
	res := mustSearch(t, e, Request{Query: "bread"})
	if !strings.Contains(res.SignalErrors["bm25"], "internal error") || len(res.Hits) == 0 {
		t.Fatalf("a panicking signal must become a signal error: %+v", res.SignalErrors)
	}
}

type panicRanker struct{}

func (panicRanker) Name() string { return rankers.SignalBM25 }
func (panicRanker) Rank(context.Context, rankers.Request) ([]rankers.Candidate, error) {
	panic("boom")
}

// An embedding_model when no embeddings are loaded is reported, not
// silently ignored (issue 10); the search still runs on the other signals.
func TestEmbeddingModelWithoutEmbeddings(t *testing.T) {
	e := testEngine(t)
	res := mustSearch(t, e, Request{Query: "bread", EmbeddingModel: "no-such-model"})
	if msg := res.SignalErrors[rankers.SignalEmbeddings]; !strings.Contains(msg, `embedding_model "no-such-model" not checked and not used`) || !strings.Contains(msg, "build-embeddings") {
		t.Fatalf("signal_errors = %v", res.SignalErrors)
	}
	if len(res.Hits) == 0 || !slices.Contains(res.SignalsUsed, rankers.SignalTFIDF) {
		t.Fatalf("search did not run: %+v", res)
	}
	if res := mustSearch(t, e, Request{Query: "bread"}); res.SignalErrors != nil {
		t.Fatalf("signal_errors without embedding_model = %v", res.SignalErrors)
	}
	// With embeddings loaded, the embeddings signal itself judges the name.
	withEmb := engineWith(t, &fakeRanker{name: rankers.SignalEmbeddings, paths: nil})
	if res := mustSearch(t, withEmb, Request{Query: "bread", EmbeddingModel: "x"}); res.SignalErrors != nil {
		t.Fatalf("signal_errors with an embeddings signal = %v", res.SignalErrors)
	}
}

// BM25 hits from an index row of another version of a note are dropped,
// and the drop is reported in signal_errors (issue 10) while the signal's
// other hits still count.
func TestBM25StaleHitsReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "Bread.md", "# Bread\n\nSourdough bread needs a starter.\n")
	write(t, dir, "Rye.md", "# Rye\n\nRye bread is dense.\n")
	old, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "ix.db"), index.NewSettings(old.Root, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(ctx, index.SnapshotSource(old), nil); err != nil {
		t.Fatal(err)
	}
	// The note changes after the sync; the server loads the new version.
	write(t, dir, "Bread.md", "# Bread\n\nSourdough bread needs a starter and patience.\n")
	snap, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(ctx, snap, analysis.New(), Options{Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	res := mustSearch(t, e, Request{Query: "bread", Signals: []string{rankers.SignalBM25}})
	if msg := res.SignalErrors[rankers.SignalBM25]; !strings.Contains(msg, "hits from 1 note(s) skipped") || !strings.Contains(msg, "Bread.md") {
		t.Fatalf("signal_errors = %v", res.SignalErrors)
	}
	if !slices.Equal(res.SignalsUsed, []string{rankers.SignalBM25}) || !slices.Equal(hitPaths(res), []string{"Rye.md"}) {
		t.Fatalf("signals_used %q, hits %q", res.SignalsUsed, hitPaths(res))
	}
}
