package rankers_test

import (
	"context"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// BenchmarkFeedback is the second pass of a default search on the
// synthetic 13,000-note corpus: the expansion from the plain pass's first
// FeedbackDocs notes plus the expanded query's ranking (compare
// BenchmarkTFIDFRank/notes, the first pass).
func BenchmarkFeedback(b *testing.B) {
	d := corpusForBench(b)
	idx, err := rankers.NewTFIDF(context.Background(), d.an, d.notes, d.chunks, rankers.DefaultFieldWeights)
	if err != nil {
		b.Fatal(err)
	}
	fb := make([][]int, len(d.queries))
	for i, q := range d.queries {
		got, err := idx.Rank(context.Background(), rankers.Request{Query: q, Limit: rankers.FeedbackDocs})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range got {
			fb[i] = append(fb[i], c.Note)
		}
	}
	b.ReportAllocs()
	var found int
	i := 0
	for b.Loop() {
		k := i % len(d.queries)
		got, err := idx.Feedback(context.Background(), rankers.Request{Query: d.queries[k], Limit: 500}, d.notes, fb[k])
		if err != nil {
			b.Fatal(err)
		}
		found += len(got)
		i++
	}
	if found == 0 {
		b.Fatal("feedback found nothing")
	}
}
