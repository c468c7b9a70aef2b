package graph

import (
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// BenchmarkBoost reranks 30 fused hits of the fixture vault.
func BenchmarkBoost(b *testing.B) {
	g := testGraph(b)
	var items []rankers.Fused
	for i := range min(30, len(g.Snapshot().Notes)) {
		items = append(items, rankers.Fused{Note: i, Chunk: rankers.NoChunk, Score: 1 / float64(61+i),
			Signals: map[string]rankers.SignalHit{rankers.SignalTFIDF: {Rank: i + 1, Score: 1 / float64(1+i)}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Boost(items, DefaultBoost)
	}
}
