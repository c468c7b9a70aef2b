package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// WithVectors returns an engine that is e with its dense signal read
// anew from the index, with opts' model (opts may differ from e's in the
// model fields alone): for vectors another process wrote while e served,
// such as a build-embeddings run, which serve picks up without a
// restart. Every other part is e's, shared; e is not modified and keeps
// serving the searches that hold it.
func (e *Engine) WithVectors(ctx context.Context, opts Options) *Engine {
	o := e.opts
	o.Embedder, o.EmbedderAlias, o.EmbedderErr = opts.Embedder, opts.EmbedderAlias, opts.EmbedderErr
	u := &Engine{snap: e.snap, graph: e.graph, an: e.an, chunks: e.chunks, tfidf: e.tfidf, opts: o, extra: e.extra, gen: e.gen + 1, state: e.state}
	chunkCount := func(n int) int { return len(u.chunks[n]) }
	dense := embeddingsRanker(ctx, o, u.snap, chunkCount, nil, nil)
	// The dense signal takes its old place, after BM25 and before the
	// extra rankers, so that fusion sees the same order.
	at := len(e.rankers) - len(e.extra)
	for i, r := range e.rankers {
		if r.Name() == rankers.SignalEmbeddings {
			at = i
			continue
		}
		u.rankers = append(u.rankers, r)
	}
	if dense != nil {
		at = min(at, len(u.rankers))
		u.rankers = append(u.rankers[:at], append([]rankers.Ranker{dense}, u.rankers[at:]...)...)
	}
	return u
}
