package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/bench/queries"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// BenchmarkSearchIndexed runs the default obsidian_search request with
// every signal on (TF-IDF, BM25 from a persistent index, built-in
// embeddings) over title fragments and, when ENQUIRE_BENCH_QUERIES names a
// BEIR queries.jsonl (e.g. vault-links/zettelkasten/queries.jsonl), those
// queries too. The index and vectors are built once in a temporary dir.
// "bm25" runs the same requests with the BM25 signal alone.
func BenchmarkSearchIndexed(b *testing.B) {
	for _, sub := range []struct {
		name    string
		signals []string
	}{{"all", nil}, {"bm25", []string{"bm25"}}} {
		b.Run(sub.name, func(b *testing.B) {
			eng, queries := indexedEngine(b)
			b.ReportAllocs()
			i := 0
			cpu := processCPU()
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if _, err := eng.Search(context.Background(), search.Request{Query: q, GraphBoost: true, Signals: sub.signals}); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64(processCPU()-cpu)/float64(i), "cpu-ns/op")
		})
	}
}

// cachedIndexed is the benchmark engine.
var cachedIndexed *search.Engine

// indexedEngine builds (once) the engine with the persistent index and the
// built-in model's vectors, and the benchmark's query list.
func indexedEngine(b *testing.B) (*search.Engine, []string) {
	b.Helper()
	ctx := context.Background()
	if cachedIndexed == nil {
		snap, err := vault.Load(ctx, vaulttest.BenchVault(b), vault.Options{})
		if err != nil {
			b.Fatal(err)
		}
		dir, err := os.MkdirTemp("", "enquire-bench-index-*")
		if err != nil {
			b.Fatal(err)
		}
		ix, err := index.Open(ctx, filepath.Join(dir, "ix.db"), index.NewSettings(snap.Root, false, chunk.DefaultOptions), false)
		if err != nil {
			b.Fatal(err)
		}
		src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Sync(ctx, src, nil); err != nil {
			b.Fatal(err)
		}
		model, err := models.Open(ctx, models.DefaultAlias, models.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if src, err = ix.DiskSource(ctx, 0, vault.PDFReader{}); err != nil {
			b.Fatal(err)
		}
		if _, err := ix.Vectors().Build(ctx, src, model, models.DefaultAlias, 0, nil); err != nil {
			b.Fatal(err)
		}
		if err := ix.BM25().BuildPostings(ctx); err != nil { // searches build it on first use; the benchmark wants it ready
			b.Fatal(err)
		}
		opts := search.Options{Index: ix, Embedder: model, EmbedderAlias: models.DefaultAlias}
		if cachedIndexed, err = search.New(ctx, snap, analysis.New(), opts); err != nil {
			b.Fatal(err)
		}
	}
	qs := titleQueries(cachedIndexed.Snapshot(), 200)
	if path := os.Getenv("ENQUIRE_BENCH_QUERIES"); path != "" {
		more, err := queries.ReadBEIR(path)
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, more...)
	}
	return cachedIndexed, qs
}
