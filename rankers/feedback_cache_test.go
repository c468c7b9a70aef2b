package rankers

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestFeedbackCacheChangesNothing runs feedback over the fixture vault for
// every title word with a cache of note terms (cold, then warm) and
// without one, and requires identical candidates and scores; and that the
// warm run was answered from the cache.
func TestFeedbackCacheChangesNothing(t *testing.T) {
	ctx := context.Background()
	snap, cached := fixtureTFIDF(t)
	plain := *cached
	plain.fbTerms = nil
	compared := 0
	for _, n := range snap.Notes {
		for _, q := range strings.Fields(n.Title) {
			req := Request{Query: q, Limit: 50}
			first, err := cached.Rank(ctx, Request{Query: q, Limit: FeedbackDocs})
			if err != nil {
				t.Fatal(err)
			}
			var fb []int
			for _, c := range first {
				fb = append(fb, c.Note)
			}
			want, err := plain.Feedback(ctx, req, snap.Notes, fb)
			if err != nil {
				t.Fatal(err)
			}
			for _, round := range []string{"cold", "warm"} {
				got, err := cached.Feedback(ctx, req, snap.Notes, fb)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%q (%s cache): %+v, want %+v", q, round, got, want)
				}
			}
			compared += len(want)
		}
	}
	if compared == 0 || len(cached.fbTerms.m) == 0 {
		t.Fatalf("nothing compared (%d) or nothing cached (%d)", compared, len(cached.fbTerms.m))
	}
}

// fixtureTFIDF loads the fixture vault and indexes it with a fresh
// analyzer and the default field weights.
func fixtureTFIDF(t *testing.T) (*vault.Snapshot, *TFIDF) {
	t.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		chunks[i] = chunk.Split(n, chunk.DefaultOptions)
	}
	ix, err := NewTFIDF(ctx, analysis.New(), snap.Notes, chunks, DefaultFieldWeights)
	if err != nil {
		t.Fatal(err)
	}
	return snap, ix
}
