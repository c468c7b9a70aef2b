package search

import (
	"context"
	"testing"
)

// BenchmarkSearchBlend measures what the recency/importance blend adds
// to a search of the fixture (a stat per fused candidate for recency):
// weights 0 (the default path), importance only, recency and importance.
func BenchmarkSearchBlend(b *testing.B) {
	e, err := newEngine(context.Background(), fixtureVault)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		wr, wi *float64
	}{{"off", nil, nil}, {"importance", nil, weight(0.3)}, {"recency+importance", weight(0.3), weight(0.3)}} {
		b.Run(bc.name, func(b *testing.B) {
			req := Request{Query: "the garden bread concurrency notes", Limit: 10, GraphBoost: true, RecencyWeight: bc.wr, ImportanceWeight: bc.wi}
			for b.Loop() {
				if _, err := e.Search(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
