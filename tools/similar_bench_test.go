package tools

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// benchEmbEngine is the benchmark vault with a persistent index and the
// built-in embeddings, built in a temporary folder removed after b.
func benchEmbEngine(b *testing.B) *search.Engine {
	b.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, vaulttest.BenchVault(b), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e := enginetest.Indexed(ctx, b, snap, false)
	return e
}

// BenchmarkFindSimilar runs obsidian_find_similar (default arguments) for
// notes spread over the vault and reports the median and 99th percentile
// latency; the per-snapshot structures are built before timing. The
// embeddings variant builds a persistent index with the built-in model
// first (a few seconds).
func BenchmarkFindSimilar(b *testing.B) {
	b.Run("tfidf", func(b *testing.B) { benchFindSimilar(b, benchEngine(b)) })
	b.Run("embeddings", func(b *testing.B) { benchFindSimilar(b, benchEmbEngine(b)) })
}

func benchFindSimilar(b *testing.B, e *search.Engine) {
	srv := &Server{}
	srv.eng.Store(e)
	cache := &simCache{}
	cache.get(e).Build()
	notes := e.Snapshot().Notes
	ctx := context.Background()
	var times []time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		n := notes[(i*7919)%len(notes)]
		i++
		start := time.Now()
		if _, err := srv.findSimilar(ctx, cache, SimilarInput{Path: n.Path}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkFindSimilarBuild is the one-off cost of the per-snapshot
// structures (first call after a load or a write).
func BenchmarkFindSimilarBuild(b *testing.B) {
	e := benchEngine(b)
	for b.Loop() {
		(&simCache{}).get(e).Build()
	}
}

// BenchmarkContextPack packs the default 4000-token bundle for title
// queries.
func BenchmarkContextPack(b *testing.B) {
	e := benchEngine(b)
	srv := &Server{}
	srv.eng.Store(e)
	notes := e.Snapshot().Notes
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		n := notes[(i*7919)%len(notes)]
		i++
		if _, err := srv.contextPack(ctx, ContextPackInput{Query: n.Title}); err != nil {
			b.Fatal(err)
		}
	}
}
