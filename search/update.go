package search

import (
	"context"
	"fmt"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Update returns the engine for snap, a snapshot made from e's by
// [vault.Snapshot.Update] with delta d (nil: snap is unrelated, such as a
// fresh load, and everything is built anew). Unchanged notes keep their chunks
// and TF-IDF postings and vectors; only new content is chunked and
// analysed. opts may differ from e's in the index and model fields (a
// signal that became unavailable or available again); a different chunk
// size or field weighting builds anew. e is not modified and keeps
// serving the searches that hold it.
func (e *Engine) Update(ctx context.Context, snap *vault.Snapshot, d *vault.Delta, opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	if d == nil || opts.Chunk != e.opts.Chunk || opts.Fields != e.opts.Fields || len(d.Old) != len(snap.Notes) {
		u, err := New(ctx, snap, e.an, opts, e.extra...)
		if u != nil {
			u.gen, u.state = e.gen+1, e.state // unchanged notes still point into it
		}
		return u, err
	}
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		if o := d.Old[i]; o >= 0 {
			chunks[i] = e.chunks[o]
		} else {
			chunks[i] = chunk.Split(n, opts.Chunk)
		}
	}
	gone := make([]rankers.Gone, len(d.Removed))
	for k, o := range d.Removed {
		gone[k] = rankers.Gone{ID: o, Note: e.snap.Notes[o], Chunks: e.chunks[o]}
	}
	tf, err := e.tfidf.Update(ctx, snap.Notes, chunks, d.Old, gone)
	if err != nil {
		return nil, fmt.Errorf("update tf-idf: %w", err)
	}
	var g *graph.Graph
	if d.Shifted() {
		g = graph.New(snap)
	} else { // ids unchanged: only changed and relinked notes' edges move
		g = e.graph.Update(snap, append(slices.Clone(d.Added), d.Relinked...))
	}
	u := &Engine{snap: snap, graph: g, an: e.an, chunks: chunks, tfidf: tf, opts: opts, extra: e.extra, gen: e.gen + 1, state: e.state}
	u.rankers = []rankers.Ranker{tf}
	u.addIndexRankers(ctx, e.startVectors(), d)
	return u, nil
}

// Generation counts the updates that led to this engine: of two engines of
// one vault, the one with the larger generation is the newer.
func (e *Engine) Generation() uint64 { return e.gen }
