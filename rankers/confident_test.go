package rankers

import (
	"slices"
	"testing"
)

func TestPinConfident(t *testing.T) {
	list := func(sig string, notes []int, scores ...float64) Ranked {
		r := Ranked{Signal: sig}
		for i, n := range notes {
			r.Candidates = append(r.Candidates, Candidate{Note: n, Chunk: NoChunk, Score: scores[i]})
		}
		return r
	}
	// TF-IDF outweighs BM25 here, so the fusion follows TF-IDF's order.
	def := map[string]float64{SignalBM25: 1, SignalTFIDF: 2, SignalFeedback: 0.5}
	cases := []struct {
		name    string
		lists   []Ranked
		weights map[string]float64
		want    []int // fused order of notes after the pin
	}{
		{"bm25 confident about a demoted note: pinned",
			[]Ranked{list(SignalBM25, []int{3, 1, 2}, 26, 21, 20), list(SignalTFIDF, []int{1, 2, 3}, 0.36, 0.35, 0.30)},
			def, []int{3, 1, 2}},
		{"lead under the margin: unchanged",
			[]Ranked{list(SignalBM25, []int{3, 1, 2}, 22, 21, 20), list(SignalTFIDF, []int{1, 2, 3}, 0.36, 0.35, 0.30)},
			def, []int{1, 3, 2}},
		{"two confident signals disagree: unchanged",
			[]Ranked{list(SignalBM25, []int{3, 1, 2}, 26, 15, 14), list(SignalTFIDF, []int{1, 3, 2}, 0.34, 0.27, 0.26)},
			def, []int{1, 3, 2}},
		{"two confident signals disagree, other list order: unchanged",
			[]Ranked{list(SignalTFIDF, []int{1, 3, 2}, 0.34, 0.27, 0.26), list(SignalBM25, []int{3, 1, 2}, 26, 15, 14)},
			def, []int{1, 3, 2}},
		{"two confident signals agree: pinned",
			[]Ranked{list(SignalBM25, []int{3, 1, 2}, 26, 15, 14), list(SignalTFIDF, []int{3, 1, 2}, 0.40, 0.30, 0.29),
				list(SignalFeedback, []int{1, 2, 3}, 0.5, 0.4, 0.1)},
			map[string]float64{SignalBM25: 1, SignalTFIDF: 1, SignalFeedback: 5}, []int{3, 1, 2}},
		{"confident TF-IDF pins against a heavier BM25",
			[]Ranked{list(SignalBM25, []int{1, 2, 3}, 22, 21, 20), list(SignalTFIDF, []int{3, 1, 2}, 0.50, 0.35, 0.30)},
			map[string]float64{SignalBM25: 3, SignalTFIDF: 1}, []int{3, 1, 2}},
		{"zero-weight confident signal is ignored",
			[]Ranked{list(SignalBM25, []int{3, 1, 2}, 26, 21, 20), list(SignalTFIDF, []int{1, 2, 3}, 0.36, 0.35, 0.30)},
			map[string]float64{SignalBM25: 0, SignalTFIDF: 1}, []int{1, 2, 3}},
		{"feedback and embeddings never pin",
			[]Ranked{list(SignalTFIDF, []int{1, 2, 3}, 0.36, 0.35, 0.30), list(SignalFeedback, []int{3, 1, 2}, 0.9, 0.1, 0.1),
				list(SignalEmbeddings, []int{2, 1, 3}, 0.9, 0.1, 0.1)},
			map[string]float64{SignalTFIDF: 3, SignalFeedback: 1, SignalEmbeddings: 1}, []int{1, 2, 3}},
		{"confident note already first: unchanged",
			[]Ranked{list(SignalBM25, []int{1, 2, 3}, 30, 10, 9), list(SignalTFIDF, []int{1, 2, 3}, 0.36, 0.35, 0.30)},
			def, []int{1, 2, 3}},
		{"a lone candidate is confident; nil weights count 1",
			[]Ranked{list(SignalBM25, []int{2}, 5), list(SignalTFIDF, []int{1, 3, 2, 4}, 0.36, 0.35, 0.34, 0.3)},
			nil, []int{2, 1, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fused := Fuse(c.lists, DefaultRRFK, c.weights)
			before := slices.Clone(fused)
			got := PinConfident(fused, c.lists, c.weights, 0.1, 1.1)
			var order []int
			for _, f := range got {
				order = append(order, f.Note)
			}
			if len(order) > 3 {
				order = order[:3]
			}
			if !slices.Equal(order, c.want) {
				t.Fatalf("order %v, want %v (fused %v)", order, c.want, before)
			}
			for i := range fused {
				if fused[i].Note != before[i].Note || fused[i].Score != before[i].Score {
					t.Fatalf("input modified at %d", i)
				}
			}
			if c.want[0] != before[0].Note && got[0].Note == before[0].Note {
				t.Fatalf("nothing pinned")
			}
			if got[0].Note != before[0].Note {
				if want := 1.1 * before[0].Score; got[0].Score != want {
					t.Fatalf("pinned score %g, want 1.1 × former first = %g", got[0].Score, want)
				}
				if got[0].Score < 1.1*got[1].Score {
					t.Fatalf("pinned %g not clearly above the next %g", got[0].Score, got[1].Score)
				}
			}
		})
	}
}
