package rankers

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// TestEmbeddingsScratchReused: queries that share the pooled per-note
// scratch, one after another and at once, rank as on fresh Embeddings
// (a seen flag left set would drop notes from the next query).
func TestEmbeddingsScratchReused(t *testing.T) {
	reqs := []Request{
		{Query: "q", Limit: 5, MinSimilarity: 0.2},
		{Query: "q", Limit: 10},
		{Query: "q", Limit: 3, MinSimilarity: 0.05},
		{Query: "q", Limit: 50},
	}
	want := make([][]Candidate, len(reqs))
	for i, req := range reqs {
		fresh := syntheticEmbeddings(999, 16, 3)
		got, err := fresh.Rank(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("request %d: no hits, nothing to compare", i)
		}
		want[i] = got
	}
	shared := syntheticEmbeddings(999, 16, 3)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				i := (g + round) % len(reqs)
				got, err := shared.Rank(context.Background(), reqs[i])
				if err != nil || !slices.Equal(got, want[i]) {
					errs <- "request differs from a fresh ranking"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
