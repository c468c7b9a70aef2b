package search

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// TestVectorsWhileBuilding follows serve through a build-embeddings run
// in another process: with no vectors the engine answers lexically; with
// a part of them the dense signal ranks what it has and says how much
// that is; once they are all written, WithVectors picks them up, and the
// model too when the engine started without one.
func TestVectorsWhileBuilding(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres and an oil change.\n")
	write(t, dir, "Kitchen.md", "# Kitchen\n\nThe sourdough loaf rose well today.\n")
	write(t, dir, "Geology.md", "# Geology\n\nSubduction zones cause the strongest earthquakes.\n")
	ctx := context.Background()
	snap, ix, src := syncedIndex(t, dir)
	m := &embedtest.Model{Name: "a"}
	bare, err := New(ctx, snap, analysis.New(), Options{Index: ix})
	if err != nil {
		t.Fatal(err)
	}
	res := mustSearch(t, bare, Request{Query: "car"})
	if slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) || len(res.Hits) == 0 {
		t.Fatalf("no vectors: signals %q, %d hits; want a lexical answer", res.SignalsUsed, len(res.Hits))
	}

	// The run has recorded its model and stored no vector yet: the dense
	// signal takes no part and says why.
	if _, err := ix.Vectors().SetModel(ctx, m.ID(), "toy", m.Dim()); err != nil {
		t.Fatal(err)
	}
	opts := Options{Index: ix, Embedder: m, EmbedderAlias: "toy"}
	res = mustSearch(t, bare.WithVectors(ctx, opts), Request{Query: "car"})
	if slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) || !strings.Contains(res.SignalErrors[rankers.SignalEmbeddings], "no chunk has a vector yet") || len(res.Hits) == 0 {
		t.Fatalf("model recorded, no vector: signals %q, errors %v, %d hits", res.SignalsUsed, res.SignalErrors, len(res.Hits))
	}

	// The run stops after its first batch of one chunk.
	stop, cancel := context.WithCancel(ctx)
	_, _ = ix.Vectors().Build(stop, src, m, "toy", 1, func(done, _ int) {
		if done > 0 {
			cancel()
		}
	})
	part := bare.WithVectors(ctx, opts)
	res = mustSearch(t, part, Request{Query: "car"})
	if !slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) || !strings.Contains(res.SignalErrors[rankers.SignalEmbeddings], "vectors for 1 of 3 chunks") {
		t.Fatalf("partial vectors: signals %q, errors %v; want embeddings used and its coverage said", res.SignalsUsed, res.SignalErrors)
	}

	if _, err := ix.Vectors().Build(ctx, src, m, "toy", 1, nil); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, part, Request{Query: "automobile maintenance"}); res.SignalErrors[rankers.SignalEmbeddings] == "" {
		t.Fatal("an engine holds the vectors it was made with: the new ones need WithVectors")
	}
	full := part.WithVectors(ctx, opts)
	if got := full.Signals(); !slices.Equal(got, []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings}) {
		t.Fatalf("signals %q", got)
	}
	res = mustSearch(t, full, Request{Query: "automobile maintenance"})
	if len(res.SignalErrors) != 0 || len(res.Hits) == 0 || res.Hits[0].Path != "Garage.md" {
		t.Fatalf("all vectors: errors %v, hits %q", res.SignalErrors, hitPaths(res))
	}
	if full.Generation() <= part.Generation() {
		t.Error("the engine with the new vectors is not the newer generation")
	}
}
