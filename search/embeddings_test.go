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
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// syncedIndex loads the vault at dir and syncs it into a fresh index
// (closed when the test ends).
func syncedIndex(t *testing.T, dir string) (*vault.Snapshot, *index.Index, index.Source) {
	t.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "ix.db"), index.NewSettings(snap.Root, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	src := index.SnapshotSource(snap)
	if _, err := ix.Sync(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	return snap, ix, src
}

// withEmbeddings builds an index with toy embeddings for a vault and
// returns an engine that loads them with model.
func withEmbeddings(t *testing.T, dir string, built, loaded *embedtest.Model) *Engine {
	t.Helper()
	return embeddedEngine(t, dir, built, loaded, Options{})
}

// embeddedEngine is withEmbeddings with engine options (Index and the
// embedder are set).
func embeddedEngine(t *testing.T, dir string, built, loaded *embedtest.Model, opts Options) *Engine {
	t.Helper()
	ctx := context.Background()
	snap, ix, src := syncedIndex(t, dir)
	if _, err := ix.Vectors().Build(ctx, src, built, "toy", 0, nil); err != nil {
		t.Fatal(err)
	}
	opts.Index, opts.Embedder, opts.EmbedderAlias = ix, loaded, "toy"
	e, err := New(ctx, snap, analysis.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEmbeddingsSignal(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres and an oil change.\n")
	write(t, dir, "Kitchen.md", "# Kitchen\n\nThe sourdough loaf rose well today.\n")
	write(t, dir, "Geology.md", "# Geology\n\nSubduction zones cause the strongest earthquakes.\n")
	m := &embedtest.Model{Name: "a"}
	e := withEmbeddings(t, dir, m, m)
	if got := e.Signals(); !slices.Equal(got, []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings}) {
		t.Fatalf("signals %q", got)
	}
	// No word in common with the note: only the dense signal can find it.
	res := mustSearch(t, e, Request{Query: "automobile maintenance"})
	if len(res.Hits) == 0 || res.Hits[0].Path != "Garage.md" {
		t.Fatalf("hits %q", hitPaths(res))
	}
	h := res.Hits[0]
	if h.Signals[rankers.SignalEmbeddings].Rank != 1 || h.Signals[rankers.SignalEmbeddings].Score <= 0 {
		t.Fatalf("per-signal %+v", h.Signals)
	}
	for _, gran := range []string{GranularityNote, GranularityBlock} {
		res = mustSearch(t, e, Request{Query: "earthquake subduction", MinSignals: 3, Granularity: gran})
		if len(res.Hits) != 1 || res.Hits[0].Path != "Geology.md" || independent(fusedOf(res.Hits[0])) != 3 {
			t.Fatalf("%s min_signals 3: %+v", gran, res.Hits)
		}
	}
	for _, ok := range []string{"", "toy", m.ID()} {
		if _, err := e.Search(context.Background(), Request{Query: "car", EmbeddingModel: ok}); err != nil {
			t.Errorf("embedding_model %q: %v", ok, err)
		}
	}
	_, err := e.Search(context.Background(), Request{Query: "car", EmbeddingModel: "multilingual"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `built with "toy"`) {
		t.Fatalf("wrong embedding_model: %v", err)
	}
	if res := mustSearch(t, e, Request{Query: "zzqx"}); len(res.SignalErrors) != 0 {
		t.Fatalf("a query the model knows nothing of must not be an error: %v", res.SignalErrors)
	}
}

func TestEmbeddingsOfAnotherModelAreUnavailable(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "car\n")
	e := withEmbeddings(t, dir, &embedtest.Model{Name: "a"}, &embedtest.Model{Name: "b"})
	res := mustSearch(t, e, Request{Query: "car"})
	if slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) || !strings.Contains(res.SignalErrors[rankers.SignalEmbeddings], "unavailable") {
		t.Fatalf("signals %q errors %v", res.SignalsUsed, res.SignalErrors)
	}
	if len(res.Hits) != 1 {
		t.Fatalf("the lexical signals must still answer: %+v", res.Hits)
	}
	if slices.Contains(e.Signals(), rankers.SignalEmbeddings) {
		t.Fatal("an unavailable signal is listed as available")
	}
}

func TestZeroWeightSignalOnlyAnnotates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres.\n")
	write(t, dir, "Kitchen.md", "# Kitchen\n\nThe sourdough loaf rose well; the car was parked outside.\n")
	m := &embedtest.Model{Name: "a"}
	e := withEmbeddings(t, dir, m, m)
	observe := map[string]float64{rankers.SignalTFIDF: 1, rankers.SignalBM25: 1, rankers.SignalEmbeddings: 0}
	// "automobile" shares no word with any note: with the dense signal
	// weighted 0 nothing is found, though it would find Garage.
	if res := mustSearch(t, e, Request{Query: "automobile", Weights: observe}); len(res.Hits) != 0 {
		t.Fatalf("a zero-weight signal added hits: %q", hitPaths(res))
	}
	res := mustSearch(t, e, Request{Query: "car", Weights: observe, MinSignals: 3})
	if len(res.Hits) != 0 {
		t.Fatalf("a zero-weight signal counted for min_signals: %q", hitPaths(res))
	}
	res = mustSearch(t, e, Request{Query: "car", Weights: observe})
	for _, h := range res.Hits {
		if _, ok := h.Signals[rankers.SignalEmbeddings]; !ok {
			t.Errorf("%s lacks its embeddings rank (shown, not counted)", h.Path)
		}
	}
	full := mustSearch(t, e, Request{Query: "car"})
	if len(res.Hits) != len(full.Hits) || !slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) {
		t.Fatalf("observed %q, fused %q, signals %q", hitPaths(res), hitPaths(full), res.SignalsUsed)
	}
	// Asked for alone, a zero-weight signal still ranks.
	alone := mustSearch(t, e, Request{Query: "automobile", Weights: observe, Signals: []string{rankers.SignalEmbeddings}})
	if len(alone.Hits) == 0 || alone.Hits[0].Path != "Garage.md" {
		t.Fatalf("embeddings alone: %q", hitPaths(alone))
	}
}

func TestDefaultWeights(t *testing.T) {
	if w := DefaultWeights("builtin:model2vec-minilm-l6-256@1/256"); w[rankers.SignalEmbeddings] != 0 || w[rankers.SignalBM25] != 2 || w[rankers.SignalTFIDF] != 1 {
		t.Fatalf("builtin weights %v", w)
	}
	if w := DefaultWeights("vault:ppmi-svd-0123456789ab-t6@1/128"); w[rankers.SignalEmbeddings] != rankers.WeightVaultEmbeddings || w[rankers.SignalBM25] != 2 {
		t.Fatalf("vault model weights %v", w)
	}
	if w := DefaultWeights("ollama:nomic-embed-text/768"); w[rankers.SignalEmbeddings] != 1 {
		t.Fatalf("remote weights %v", w)
	}
	e := withEmbeddings(t, t.TempDir(), &embedtest.Model{Name: "a"}, &embedtest.Model{Name: "a"})
	if w := e.Weights(); w[rankers.SignalEmbeddings] != 1 {
		t.Fatalf("engine weights %v", w)
	}
}

func fusedOf(h Hit) rankers.Fused {
	return rankers.Fused{Note: h.Note, Chunk: h.Chunk, Signals: h.Signals}
}
