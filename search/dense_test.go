package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// denseEngine indexes dir with toy embeddings and serves it with opts.
func denseEngine(t *testing.T, dir string, opts Options) *Engine {
	t.Helper()
	m := &embedtest.Model{Name: "a"}
	return embeddedEngine(t, dir, m, m, opts)
}

func denseVault(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres.\n")
	write(t, dir, "Dealer.md", "# Dealer\n\nThe automobile dealer sells a vehicle a week.\n")
	write(t, dir, "Kitchen.md", "# Kitchen\n\nThe sourdough loaf rose well.\n")
	return dir
}

func denseRank(res *Result, path string) int {
	for _, h := range res.Hits {
		if h.Path == path {
			return h.Signals[rankers.SignalEmbeddings].Rank
		}
	}
	return 0
}

func TestMinSimilarity(t *testing.T) {
	e := denseEngine(t, denseVault(t), Options{})
	// "automobile" is a word of Dealer only; Garage is found by the dense
	// signal alone, with some cosine s.
	res := mustSearch(t, e, Request{Query: "automobile"})
	var cos float64
	for _, h := range res.Hits {
		if h.Path == "Garage.md" {
			cos = h.Signals[rankers.SignalEmbeddings].Score
		}
	}
	if cos <= 0 || cos >= 1 {
		t.Fatalf("Garage not found by the dense signal alone: %q (cosine %v)", hitPaths(res), cos)
	}
	tests := []struct {
		min    float64
		garage bool
	}{{0, true}, {cos - 0.01, true}, {cos + 0.01, false}, {1, false}}
	for _, tt := range tests {
		res := mustSearch(t, e, Request{Query: "automobile", MinSimilarity: tt.min})
		if got := slices.Contains(hitPaths(res), "Garage.md"); got != tt.garage {
			t.Errorf("min_similarity %.3f: Garage found %v, want %v (hits %q)", tt.min, got, tt.garage, hitPaths(res))
		}
		for _, h := range res.Hits {
			if s, ok := h.Signals[rankers.SignalEmbeddings]; ok && s.Score < tt.min {
				t.Errorf("min_similarity %.3f: %s kept with cosine %v", tt.min, h.Path, s.Score)
			}
		}
	}
}

func TestPrefilter(t *testing.T) {
	dir := denseVault(t)
	full := denseEngine(t, dir, Options{PrefilterLimit: -1})
	pre := denseEngine(t, dir, Options{PrefilterLimit: 1}) // 3 chunks > 1: prefilter on
	if pre.prefilterLimit() != 1 || full.prefilterLimit() != -1 || (&Engine{}).prefilterLimit() != rankers.DefaultPrefilterLimit {
		t.Fatal("prefilter limits not as configured")
	}
	// "car" is a word of Garage only: without prefilter the dense signal
	// also finds Dealer (automobile, vehicle); with it, it scores only
	// the lexical candidates.
	res := mustSearch(t, full, Request{Query: "car"})
	if denseRank(res, "Dealer.md") == 0 {
		t.Fatalf("without prefilter the dense signal should find Dealer: %+v", res.Hits)
	}
	res = mustSearch(t, pre, Request{Query: "car"})
	if slices.Contains(hitPaths(res), "Dealer.md") || denseRank(res, "Garage.md") != 1 {
		t.Fatalf("with prefilter: hits %q, Garage dense rank %d", hitPaths(res), denseRank(res, "Garage.md"))
	}
	// No lexical candidate at all: the dense signal scores everything.
	res = mustSearch(t, pre, Request{Query: "cars"})
	if denseRank(res, "Garage.md") == 0 {
		t.Fatalf("without lexical candidates the dense signal must still run: %q", hitPaths(res))
	}
	// Asked for alone, the dense signal is never prefiltered.
	res = mustSearch(t, pre, Request{Query: "car", Signals: []string{rankers.SignalEmbeddings}})
	if !slices.Contains(hitPaths(res), "Dealer.md") {
		t.Fatalf("embeddings alone: %q", hitPaths(res))
	}
	// Block granularity too.
	res = mustSearch(t, pre, Request{Query: "car", Granularity: GranularityBlock})
	if slices.Contains(hitPaths(res), "Dealer.md") {
		t.Fatalf("block with prefilter: %q", hitPaths(res))
	}
}

func TestPassagesUseTheDenseSignal(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Long.md", "# Long\n\n"+repeatWords("filler", 300)+"\n\n## Cars\n\nAn automobile and a vehicle.\n\n"+repeatWords("padding", 300)+"\n")
	e := denseEngine(t, dir, Options{})
	res := mustSearch(t, e, Request{Query: "car", MaxPassages: intPtr(2)})
	if len(res.Hits) != 1 || len(res.Hits[0].Passages) == 0 {
		t.Fatalf("hits %+v", res.Hits)
	}
	if p := res.Hits[0].Passages[0]; p.Score <= 0 || !strings.HasPrefix(p.Text, "## Cars") {
		t.Fatalf("best passage %q (score %v): the dense signal should pick the Cars section", p.Text, p.Score)
	}
}

func repeatWords(w string, n int) string {
	out := make([]byte, 0, n*(len(w)+1))
	for i := range n {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, w...)
	}
	return string(out)
}
