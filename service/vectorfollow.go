package service

import (
	"context"
	"time"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// serve picks up the vectors another process writes into its index
// (build-embeddings, run while serving): it reads the index's vector
// stamp every vectorPollEvery, a small read, and when the vectors
// changed it swaps in an engine whose dense signal reads them anew.
// While a build goes on the stamp changes with every batch: the vectors
// are then read again at most every vectorReloadEvery (reading them all
// costs about a second of CPU at 100,000 notes), and once more as soon
// as the stamp holds still for one poll (the build finished or stopped).
const (
	vectorPollEvery   = 5 * time.Second
	vectorReloadEvery = time.Minute
)

// vectorFollower is what followVectors remembers between polls.
type vectorFollower struct {
	// seen is the stamp of the vectors the engine holds; prev the stamp
	// of the last poll.
	seen, prev string
	loadedAt   time.Time
}

// sawEngine records the stamp of the vectors engine e holds, when e is
// swapped in: its own (read with the vectors) when known, else the
// index's now, so that vectors serve wrote itself (a live edit's) are
// not read again.
func (f *vectorFollower) sawEngine(l *Vault, e *search.Engine) {
	if l.ix == nil {
		return
	}
	if stamp := e.VectorStamp(); stamp != "" {
		f.seen = stamp
		return
	}
	if stamp, err := l.ix.Vectors().Stamp(context.Background()); err == nil {
		f.seen = stamp
	}
}

// followVectors polls the vector stamp until ctx ends (see
// vectorPollEvery).
func (l *Vault) followVectors(ctx context.Context, every time.Duration) {
	l.mu.Lock()
	l.vectors.sawEngine(l, l.eng)
	l.mu.Unlock()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			l.refreshVectors(ctx, now)
		}
	}
}

// refreshVectors swaps in an engine with the index's vectors when they
// changed since the engine's were read, opening the recorded model first
// when none is loaded (serve started before any vector existed). It
// reports whether it swapped.
func (l *Vault) refreshVectors(ctx context.Context, now time.Time) bool {
	if l.ix == nil {
		return false
	}
	stamp, err := l.ix.Vectors().Stamp(ctx)
	if err != nil || stamp == "" {
		return false // an index without the stamp's triggers: nothing to compare
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := &l.vectors
	settled := stamp == f.prev
	f.prev = stamp
	if stamp == f.seen || !settled && now.Sub(f.loadedAt) < vectorReloadEvery {
		return false
	}
	opts := l.searchOpts
	if id, _, _ := l.ix.Vectors().Model(ctx); id != "" && (opts.Embedder == nil || opts.Embedder.ID() != id) {
		model, alias, err := l.loadEmbedder(ctx)
		l.searchOpts.Embedder, l.searchOpts.EmbedderAlias, l.searchOpts.EmbedderErr = model, alias, err
		opts = l.searchOpts
	}
	eng := l.eng.WithVectors(ctx, opts)
	l.swap(eng)
	f.seen, f.loadedAt = stamp, now
	if info := eng.Info(); info.EmbeddingModel != "" {
		l.logger.Info("vectors read anew from the index", "chunks", info.Vectors, "model", opts.EmbedderAlias)
	}
	return true
}
