package rankers_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// byRank is the documented order: score descending, then note and chunk
// ascending.
func byRank(a, b rankers.Candidate) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	case a.Note != b.Note:
		return a.Note - b.Note
	}
	return a.Chunk - b.Chunk
}

func randomCandidates(rng *rand.Rand, n int, ties bool) []rankers.Candidate {
	out := make([]rankers.Candidate, n)
	for i := range out {
		score := rng.Float64()
		if ties {
			score = float64(rng.IntN(4)) / 4 // many equal scores
		}
		out[i] = rankers.Candidate{Note: rng.IntN(max(1, n/2)), Chunk: rng.IntN(4) - 1, Score: score}
	}
	return out
}

func TestTopKMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	cases := 0
	for _, k := range []int{1, 2, 3, 5, 8, 10, 25} {
		sizes := []int{0, 1, 2, k - 1, k, k + 1, 2 * k, 4*k - 1, 4 * k, 4*k + 1, 4*k + 2, 5 * k, 10 * k, 100, 1000}
		for _, n := range sizes {
			if n < 0 {
				continue
			}
			for _, ties := range []bool{false, true} {
				for rep := range 3 {
					cands := randomCandidates(rng, n, ties)
					want := slices.Clone(cands)
					slices.SortFunc(want, byRank)
					want = want[:min(k, n)]
					got := rankers.TopK(slices.Clone(cands), k)
					if !slices.Equal(got, want) {
						t.Fatalf("k=%d n=%d ties=%v rep=%d:\n got %v\nwant %v", k, n, ties, rep, got, want)
					}
					cases++
				}
			}
		}
	}
	if cases < 500 {
		t.Fatalf("only %d cases ran", cases)
	}
}

func TestTopKEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cands := randomCandidates(rng, 20, true)
	sorted := slices.Clone(cands)
	slices.SortFunc(sorted, byRank)
	tests := []struct {
		k    int
		want []rankers.Candidate
	}{
		{k: -3, want: nil},
		{k: 0, want: nil},
		{k: 1, want: sorted[:1]},
		{k: 20, want: sorted},
		{k: 21, want: sorted},
		{k: 1 << 20, want: sorted},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("k=", tt.k), func(t *testing.T) {
			got := rankers.TopK(slices.Clone(cands), tt.k)
			if !slices.Equal(got, tt.want) {
				t.Errorf("TopK(k=%d) = %v, want %v", tt.k, got, tt.want)
			}
			if tt.k <= 0 && got != nil {
				t.Errorf("TopK(k=%d) = %v, want nil", tt.k, got)
			}
		})
	}
	if got := rankers.TopK(nil, 5); len(got) != 0 {
		t.Errorf("TopK(nil, 5) = %v", got)
	}
	// Fully equal candidates (same score, note, chunk) are all kept.
	same := slices.Repeat([]rankers.Candidate{{Note: 3, Chunk: 1, Score: 0.5}}, 50)
	if got := rankers.TopK(same, 7); len(got) != 7 || got[6] != same[0] {
		t.Errorf("TopK of equal candidates = %v", got)
	}
	// Exact ties are broken by note then chunk, whatever the input order.
	tied := []rankers.Candidate{
		{Note: 9, Chunk: 0, Score: 1}, {Note: 2, Chunk: 5, Score: 1}, {Note: 2, Chunk: -1, Score: 1},
		{Note: 4, Chunk: 0, Score: 2}, {Note: 1, Chunk: 0, Score: 0.5},
	}
	for _, src := range [][]rankers.Candidate{tied, append(slices.Clone(tied), slices.Repeat([]rankers.Candidate{{Note: 50, Score: 0.1}}, 20)...)} {
		want := []rankers.Candidate{{Note: 4, Chunk: 0, Score: 2}, {Note: 2, Chunk: -1, Score: 1}, {Note: 2, Chunk: 5, Score: 1}}
		if got := rankers.TopK(slices.Clone(src), 3); !slices.Equal(got, want) {
			t.Errorf("TopK of %d tied candidates = %v, want %v", len(src), got, want)
		}
	}
}
