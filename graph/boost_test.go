package graph

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// item is a fused hit found by TF-IDF alone at the given rank with the
// given raw cosine.
func item(t *testing.T, g *Graph, path string, rank int, cosine float64) rankers.Fused {
	return rankers.Fused{
		Note: id(t, g, path), Chunk: rankers.NoChunk,
		Score:   1 / float64(rankers.DefaultRRFK+rank),
		Signals: map[string]rankers.SignalHit{rankers.SignalTFIDF: {Rank: rank, Score: cosine}},
	}
}

// withDense adds a dense signal's cosine to a fused item.
func withDense(f rankers.Fused, cosine float64) rankers.Fused {
	f.Signals[rankers.SignalEmbeddings] = rankers.SignalHit{Rank: f.Signals[rankers.SignalTFIDF].Rank, Score: cosine}
	return f
}

func TestClearlyBetterConsultsRatioScaleSignals(t *testing.T) {
	hit := func(score float64, sig map[string]float64) rankers.Fused {
		f := rankers.Fused{Score: score, Signals: map[string]rankers.SignalHit{}}
		for s, v := range sig {
			f.Signals[s] = rankers.SignalHit{Rank: 1, Score: v}
		}
		return f
	}
	tests := []struct {
		name string
		a, b rankers.Fused
		want bool
	}{
		{"fused score 1.1× higher", hit(1.1, nil), hit(1, nil), true},
		{"lexical 3× higher", hit(1, map[string]float64{"tfidf": 0.9}), hit(1, map[string]float64{"tfidf": 0.3}), true},
		{"lexical 3× higher, dense lower", hit(1, map[string]float64{"tfidf": 0.9, "embeddings": 0.80}),
			hit(1, map[string]float64{"tfidf": 0.3, "embeddings": 0.82}), true},
		{"one lexical signal not dominated", hit(1, map[string]float64{"tfidf": 0.9, "bm25": 5}),
			hit(1, map[string]float64{"tfidf": 0.3, "bm25": 4.95}), false},
		{"b found by a lexical signal a lacks", hit(1, map[string]float64{"tfidf": 0.9}),
			hit(1, map[string]float64{"tfidf": 0.3, "bm25": 4}), false},
		{"b found by the dense signal only, dense 3× higher", hit(1, map[string]float64{"tfidf": 0.9, "embeddings": 0.9}),
			hit(1, map[string]float64{"embeddings": 0.3}), true},
		{"b found by the dense signal only, dense close", hit(1, map[string]float64{"tfidf": 0.9, "embeddings": 0.80}),
			hit(1, map[string]float64{"embeddings": 0.82}), false},
		{"b found by nothing", hit(1, map[string]float64{"tfidf": 0.9}), hit(1, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clearlyBetter(tt.a, tt.b, DefaultBoost.Strength); got != tt.want {
				t.Fatalf("clearlyBetter = %v, want %v", got, tt.want)
			}
		})
	}
}

func order(g *Graph, items []rankers.Fused) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = g.Snapshot().Notes[it.Note].Path
	}
	return out
}

// In the fixture, Crawler and Log Pipeline both link to Go Concurrency.
func TestBoostLiftsANoteOtherHitsLinkTo(t *testing.T) {
	g := testGraph(t)
	tests := []struct {
		name  string
		items []rankers.Fused
		want  []string
	}{
		{
			name: "near tie: the note both other hits link to moves to the top",
			items: []rankers.Fused{
				item(t, g, "Projects/Crawler.md", 1, 0.50),
				item(t, g, "Software/Go Concurrency.md", 2, 0.495),
				item(t, g, "Projects/Log Pipeline.md", 3, 0.45),
			},
			want: []string{"Software/Go Concurrency.md", "Projects/Crawler.md", "Projects/Log Pipeline.md"},
		},
		{
			name: "unlinked near tie keeps its order",
			items: []rankers.Fused{
				item(t, g, "Cooking/Knife Skills.md", 1, 0.50),
				item(t, g, "Music/Guitar Chords.md", 2, 0.49),
				item(t, g, "Health/Running.md", 3, 0.48),
			},
			want: []string{"Cooking/Knife Skills.md", "Music/Guitar Chords.md", "Health/Running.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := order(g, g.Boost(tt.items, DefaultBoost))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("order = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBoostNeverInvertsAStrongMatch(t *testing.T) {
	g := testGraph(t)
	tests := []struct {
		name  string
		items []rankers.Fused
	}{
		{
			// Fusion sees ranks 1 and 2 (scores 1.6% apart), but TF-IDF
			// scored the top hit three times higher: the hub must not pass.
			name: "signal-level clear win",
			items: []rankers.Fused{
				item(t, g, "Projects/Crawler.md", 1, 0.90),
				item(t, g, "Software/Go Concurrency.md", 2, 0.30),
				item(t, g, "Projects/Log Pipeline.md", 3, 0.28),
			},
		},
		{
			// As above, with a dense signal that found both at cosines a
			// few hundredths apart: it cannot testify either way, so the
			// lexical clear win still holds.
			name: "signal-level clear win, dense signal found both",
			items: []rankers.Fused{
				withDense(item(t, g, "Projects/Crawler.md", 1, 0.90), 0.80),
				withDense(item(t, g, "Software/Go Concurrency.md", 2, 0.30), 0.82),
				withDense(item(t, g, "Projects/Log Pipeline.md", 3, 0.28), 0.79),
			},
		},
		{
			// The top hit was found by two signals, the hub by one: its
			// fused score is far above what any boost can add.
			name: "fused-score clear win",
			items: []rankers.Fused{
				{Note: id(t, g, "Projects/Crawler.md"), Chunk: rankers.NoChunk, Score: 2.0 / 61, Signals: map[string]rankers.SignalHit{
					rankers.SignalTFIDF: {Rank: 1, Score: 0.5}, rankers.SignalBM25: {Rank: 1, Score: 9}}},
				item(t, g, "Software/Go Concurrency.md", 2, 0.49),
				item(t, g, "Projects/Log Pipeline.md", 3, 0.45),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := order(g, g.Boost(tt.items, DefaultBoost))
			if got[0] != "Projects/Crawler.md" {
				t.Fatalf("order = %q: the clearly better match lost the top spot", got)
			}
		})
	}
}

// TestBoostBoundProperty checks the guarantee on random inputs: whenever
// a was clearly better than b before the boost, a is still above b after.
func TestBoostBoundProperty(t *testing.T) {
	g := testGraph(t)
	notes := len(g.Snapshot().Notes)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := 2 + rng.IntN(35)
		perm := rng.Perm(notes)
		items := make([]rankers.Fused, n)
		for i := range items {
			sigs := map[string]rankers.SignalHit{}
			score := 0.0
			for _, s := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings} {
				if rng.IntN(3) > 0 {
					r := 1 + rng.IntN(50)
					sigs[s] = rankers.SignalHit{Rank: r, Score: rng.Float64()}
					score += 1 / float64(60+r)
				}
			}
			items[i] = rankers.Fused{Note: perm[i%notes], Chunk: rankers.NoChunk, Score: score, Signals: sigs}
		}
		slices.SortFunc(items, func(a, b rankers.Fused) int {
			switch {
			case a.Score > b.Score:
				return -1
			case a.Score < b.Score:
				return 1
			}
			return 0
		})
		out := g.Boost(items, DefaultBoost)
		pos := map[int]int{}
		for i, it := range out {
			pos[it.Note] = i
		}
		if len(out) != len(items) {
			t.Fatalf("round %d: %d items in, %d out", round, len(items), len(out))
		}
		for i, a := range items {
			for _, b := range items[i+1:] {
				if clearlyBetter(a, b, DefaultBoost.Strength) && pos[a.Note] > pos[b.Note] {
					t.Fatalf("round %d: %s was clearly better than %s but ends below it",
						round, g.Snapshot().Notes[a.Note].Path, g.Snapshot().Notes[b.Note].Path)
				}
			}
		}
		for _, it := range out {
			orig := items[slices.IndexFunc(items, func(x rankers.Fused) bool { return x.Note == it.Note })]
			if it.Score < orig.Score || it.Score > orig.Score*(1+DefaultBoost.Strength)+1e-12 {
				t.Fatalf("round %d: score %v moved outside [%v, %v]", round, it.Score, orig.Score, orig.Score*(1+DefaultBoost.Strength))
			}
		}
	}
}

func TestBoostDoesNotModifyInputAndHandlesTinyLists(t *testing.T) {
	g := testGraph(t)
	in := []rankers.Fused{
		item(t, g, "Projects/Crawler.md", 1, 0.50),
		item(t, g, "Software/Go Concurrency.md", 2, 0.48),
	}
	before := slices.Clone(in)
	g.Boost(in, DefaultBoost)
	for i := range in {
		if in[i].Note != before[i].Note || in[i].Score != before[i].Score {
			t.Fatal("Boost modified its input")
		}
	}
	if got := g.Boost(nil, DefaultBoost); len(got) != 0 {
		t.Fatalf("Boost(nil) = %v", got)
	}
	one := in[:1]
	if got := g.Boost(one, BoostOptions{}); len(got) != 1 || got[0].Score != one[0].Score {
		t.Fatalf("a single item must come back unchanged, got %+v", got)
	}
}

func TestBoostOnlyWithinDepth(t *testing.T) {
	g := testGraph(t)
	items := []rankers.Fused{
		item(t, g, "Projects/Crawler.md", 1, 0.50),
		item(t, g, "Projects/Log Pipeline.md", 2, 0.49),
		item(t, g, "Software/Go Concurrency.md", 3, 0.48),
	}
	got := order(g, g.Boost(items, BoostOptions{Depth: 2, Strength: 0.1}))
	if got[2] != "Software/Go Concurrency.md" {
		t.Fatalf("an item beyond Depth moved: %q", got)
	}
}
