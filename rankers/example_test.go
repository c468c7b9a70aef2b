package rankers_test

import (
	"fmt"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

func ExampleFuse() {
	lists := []rankers.Ranked{
		{Signal: rankers.SignalBM25, Candidates: []rankers.Candidate{
			{Note: 1, Chunk: rankers.NoChunk, Score: 12.5},
			{Note: 2, Chunk: rankers.NoChunk, Score: 9.1},
			{Note: 3, Chunk: rankers.NoChunk, Score: 4},
		}},
		{Signal: rankers.SignalTFIDF, Candidates: []rankers.Candidate{
			{Note: 2, Chunk: rankers.NoChunk, Score: 0.81},
			{Note: 4, Chunk: rankers.NoChunk, Score: 0.4},
		}},
	}
	// k ≤ 0 means DefaultRRFK (60); nil weights count every signal once.
	for _, f := range rankers.Fuse(lists, 0, nil) {
		fmt.Printf("note %d  rrf %.6f", f.Note, f.Score)
		signals := make([]string, 0, len(f.Signals))
		for s := range f.Signals {
			signals = append(signals, s)
		}
		slices.Sort(signals)
		for _, s := range signals {
			fmt.Printf("  %s #%d (%g)", s, f.Signals[s].Rank, f.Signals[s].Score)
		}
		fmt.Println()
	}
	// Output:
	// note 2  rrf 0.032522  bm25 #2 (9.1)  tfidf #1 (0.81)
	// note 1  rrf 0.016393  bm25 #1 (12.5)
	// note 4  rrf 0.016129  tfidf #2 (0.4)
	// note 3  rrf 0.015873  bm25 #3 (4)
}
