package static_test

import (
	"context"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/minilm"
)

// prose is note-like English with the usual mess: capitals, punctuation,
// numbers, hyphens, contractions, a link and a little non-ASCII.
const prose = `Meeting notes, 2024-03-14. We reviewed the search-quality project and
agreed that retrieval over the vault must stay fast: indexing 13,415 notes
took 42 seconds, and queries answer in under a millisecond. Anna didn't like
the way tags are parsed; she'd rather treat nested tags like #project/search
as folders. The embedding experiment (GloVe vectors with SIF weights) found
notes about sourdough bread when asked for "baking recipes", which TF-IDF
can't do because no word is shared. Next steps: measure nDCG@10 on the
benchmark, compare with BM25, write the café review for the newsletter, and
fix the bug where a long-running sync holds the lock. Remember to back up the
database before Friday's migration; see https://example.com/docs/migration for
the checklist. Reading list: a paper on dense retrieval, a blog post about
approximate nearest-neighbour search with HNSW graphs, and Darwin's notes on
the origin of species. The garden needs water twice a week in summer, and the
tomatoes should be staked before the storm. Budget review: travel costs rose
by 12 percent, mostly flights to the conference in Lisbon.`

// chunks returns n chunks of about 150 words cut from prose at shifting
// offsets, so no two are equal.
func chunks(n int) []string {
	words := strings.Fields(prose)
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := range 150 {
			b.WriteString(words[(i*7+k)%len(words)])
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

// BenchmarkEmbed measures the whole pipeline of the built-in model on
// 150-word chunks — WordPiece tokenizing, lookups, weighted sum,
// normalisation — in batches of 64, on one goroutine.
func BenchmarkEmbed(b *testing.B) {
	m, err := minilm.Load()
	if err != nil {
		b.Fatal(err)
	}
	batch := chunks(64)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Embed(ctx, batch, embed.Document); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkEmbedParallel is BenchmarkEmbed on every core.
func BenchmarkEmbedParallel(b *testing.B) {
	m, err := minilm.Load()
	if err != nil {
		b.Fatal(err)
	}
	batch := chunks(64)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Embed(ctx, batch, embed.Document); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "chunks/s")
}
