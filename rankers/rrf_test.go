package rankers_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// notes makes a note-level list of a signal; scores count down from 10.
func notes(signal string, ids ...int) rankers.Ranked {
	r := rankers.Ranked{Signal: signal}
	for i, id := range ids {
		r.Candidates = append(r.Candidates, rankers.Candidate{Note: id, Chunk: rankers.NoChunk, Score: float64(10 - i)})
	}
	return r
}

// fusedKey is what a test checks of a fused item.
type fusedKey struct {
	note, chunk int
	score       float64
}

func keys(fs []rankers.Fused) []fusedKey {
	out := make([]fusedKey, len(fs))
	for i, f := range fs {
		out[i] = fusedKey{f.Note, f.Chunk, f.Score}
	}
	return out
}

func sameKeys(got, want []fusedKey) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].note != want[i].note || got[i].chunk != want[i].chunk || math.Abs(got[i].score-want[i].score) > 1e-12 {
			return false
		}
	}
	return true
}

func TestFuseScores(t *testing.T) {
	const nc = rankers.NoChunk
	bm := notes(rankers.SignalBM25, 1, 2, 3)
	tf := notes(rankers.SignalTFIDF, 2, 4)
	em := notes(rankers.SignalEmbeddings, 4, 1, 5)
	tests := []struct {
		name    string
		lists   []rankers.Ranked
		k       float64
		weights map[string]float64
		want    []fusedKey
	}{
		{
			name:  "two lists",
			lists: []rankers.Ranked{bm, tf}, k: 60,
			want: []fusedKey{
				{2, nc, 1.0/62 + 1.0/61},
				{1, nc, 1.0 / 61},
				{4, nc, 1.0 / 62},
				{3, nc, 1.0 / 63},
			},
		},
		{
			name:  "three lists",
			lists: []rankers.Ranked{bm, tf, em}, k: 60,
			want: []fusedKey{
				{1, nc, 1.0/61 + 1.0/62}, // 0.032522
				{2, nc, 1.0/62 + 1.0/61}, // same sum: tie, note 1 first
				{4, nc, 1.0/62 + 1.0/61}, // same again
				{3, nc, 1.0 / 63},        // 0.015873
				{5, nc, 1.0 / 63},        // tie: note 3 first
			},
		},
		{
			name:  "weight 2 on bm25",
			lists: []rankers.Ranked{bm, tf}, k: 60,
			weights: map[string]float64{rankers.SignalBM25: 2},
			want: []fusedKey{
				{2, nc, 2.0/62 + 1.0/61}, // 0.048651
				{1, nc, 2.0 / 61},        // 0.032787
				{3, nc, 2.0 / 63},        // 0.031746
				{4, nc, 1.0 / 62},        // 0.016129
			},
		},
		{
			name:  "weights for absent signals change nothing",
			lists: []rankers.Ranked{bm, tf}, k: 60,
			weights: map[string]float64{rankers.SignalEmbeddings: 5},
			want: []fusedKey{
				{2, nc, 1.0/62 + 1.0/61}, {1, nc, 1.0 / 61}, {4, nc, 1.0 / 62}, {3, nc, 1.0 / 63},
			},
		},
		{
			name:  "explicit weights 1 equal nil",
			lists: []rankers.Ranked{bm, tf}, k: 60,
			weights: map[string]float64{rankers.SignalBM25: 1, rankers.SignalTFIDF: 1},
			want: []fusedKey{
				{2, nc, 1.0/62 + 1.0/61}, {1, nc, 1.0 / 61}, {4, nc, 1.0 / 62}, {3, nc, 1.0 / 63},
			},
		},
		{
			name:  "k=1",
			lists: []rankers.Ranked{bm, tf}, k: 1,
			want: []fusedKey{
				{2, nc, 1.0/3 + 1.0/2}, {1, nc, 1.0 / 2}, {4, nc, 1.0 / 3}, {3, nc, 1.0 / 4},
			},
		},
		{
			name:  "k=0 means 60",
			lists: []rankers.Ranked{bm, tf}, k: 0,
			want: []fusedKey{
				{2, nc, 1.0/62 + 1.0/61}, {1, nc, 1.0 / 61}, {4, nc, 1.0 / 62}, {3, nc, 1.0 / 63},
			},
		},
		{
			name:  "negative k means 60",
			lists: []rankers.Ranked{bm, tf}, k: -5,
			want: []fusedKey{
				{2, nc, 1.0/62 + 1.0/61}, {1, nc, 1.0 / 61}, {4, nc, 1.0 / 62}, {3, nc, 1.0 / 63},
			},
		},
		{
			name:  "a list with an item twice counts it once, at its first rank",
			lists: []rankers.Ranked{notes(rankers.SignalBM25, 1, 2, 1)}, k: 60,
			want: []fusedKey{{1, nc, 1.0 / 61}, {2, nc, 1.0 / 62}},
		},
		{
			name:  "no lists",
			lists: nil, k: 60,
			want: nil,
		},
		{
			name:  "empty lists",
			lists: []rankers.Ranked{{Signal: rankers.SignalBM25}, {Signal: rankers.SignalTFIDF}}, k: 60,
			want: nil,
		},
		{
			name: "chunks of one note are different items",
			lists: []rankers.Ranked{
				{Signal: rankers.SignalBM25, Candidates: []rankers.Candidate{{Note: 7, Chunk: 0}, {Note: 7, Chunk: 1}, {Note: 7, Chunk: nc}}},
				{Signal: rankers.SignalTFIDF, Candidates: []rankers.Candidate{{Note: 7, Chunk: 1}}},
			},
			k: 60,
			want: []fusedKey{
				{7, 1, 1.0/62 + 1.0/61},
				{7, 0, 1.0 / 61},
				{7, nc, 1.0 / 63},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rankers.Fuse(tt.lists, tt.k, tt.weights)
			if !sameKeys(keys(got), tt.want) {
				t.Errorf("Fuse =\n%v\nwant\n%v", keys(got), tt.want)
			}
			// Deterministic: the same input gives the same output.
			if again := rankers.Fuse(tt.lists, tt.k, tt.weights); !reflect.DeepEqual(got, again) {
				t.Error("Fuse is not deterministic")
			}
		})
	}
}

func TestFusePerSignal(t *testing.T) {
	lists := []rankers.Ranked{
		{Signal: rankers.SignalBM25, Candidates: []rankers.Candidate{
			{Note: 1, Chunk: rankers.NoChunk, Score: 12.5},
			{Note: 2, Chunk: rankers.NoChunk, Score: 7.25},
			{Note: 1, Chunk: rankers.NoChunk, Score: 3}, // duplicate: ignored
		}},
		{Signal: rankers.SignalTFIDF, Candidates: []rankers.Candidate{
			{Note: 2, Chunk: rankers.NoChunk, Score: 0.81},
		}},
		{Signal: rankers.SignalEmbeddings, Candidates: []rankers.Candidate{
			{Note: 3, Chunk: rankers.NoChunk, Score: 0.33},
			{Note: 1, Chunk: rankers.NoChunk, Score: 0.3},
		}},
	}
	got := rankers.Fuse(lists, 60, map[string]float64{rankers.SignalEmbeddings: 0.5})
	want := map[int]map[string]rankers.SignalHit{
		1: {rankers.SignalBM25: {Rank: 1, Score: 12.5}, rankers.SignalEmbeddings: {Rank: 2, Score: 0.3}},
		2: {rankers.SignalBM25: {Rank: 2, Score: 7.25}, rankers.SignalTFIDF: {Rank: 1, Score: 0.81}},
		3: {rankers.SignalEmbeddings: {Rank: 1, Score: 0.33}},
	}
	wantScore := map[int]float64{
		1: 1.0/61 + 0.5/62,
		2: 1.0/62 + 1.0/61,
		3: 0.5 / 61,
	}
	if len(got) != len(want) {
		t.Fatalf("%d fused items, want %d", len(got), len(want))
	}
	for _, f := range got {
		if !reflect.DeepEqual(f.Signals, want[f.Note]) {
			t.Errorf("note %d: signals %+v, want %+v", f.Note, f.Signals, want[f.Note])
		}
		if math.Abs(f.Score-wantScore[f.Note]) > 1e-12 {
			t.Errorf("note %d: score %v, want %v", f.Note, f.Score, wantScore[f.Note])
		}
		// The score is exactly the weighted sum of the kept ranks.
		var sum float64
		for s, h := range f.Signals {
			w := 1.0
			if s == rankers.SignalEmbeddings {
				w = 0.5
			}
			sum += w / (60 + float64(h.Rank))
		}
		if math.Abs(sum-f.Score) > 1e-12 {
			t.Errorf("note %d: score %v is not Σ w/(k+rank) = %v", f.Note, f.Score, sum)
		}
	}
	if got[0].Note != 2 || got[1].Note != 1 || got[2].Note != 3 {
		t.Errorf("order %v, want notes 2, 1, 3", keys(got))
	}
	// Fuse does not modify its input lists.
	if lists[0].Candidates[2].Score != 3 || len(lists[0].Candidates) != 3 {
		t.Error("Fuse modified its input")
	}
}

func TestFuseTieBreaks(t *testing.T) {
	const nc = rankers.NoChunk
	c := func(note, chunk int) rankers.Candidate { return rankers.Candidate{Note: note, Chunk: chunk} }
	list := func(signal string, cs ...rankers.Candidate) rankers.Ranked {
		return rankers.Ranked{Signal: signal, Candidates: cs}
	}
	tests := []struct {
		name    string
		lists   []rankers.Ranked
		k       float64
		weights map[string]float64
		want    [][2]int // (note, chunk) in order
	}{
		{
			// Note 0 gets 2/61 from bm25 (weight 2); note 5 gets 1/61 from
			// each of two signals: the same score, found by more signals.
			name: "more signals first",
			lists: []rankers.Ranked{
				list("s1", c(0, nc)),
				list("s2", c(5, nc)),
				list("s3", c(5, nc)),
			},
			k:       60,
			weights: map[string]float64{"s1": 2},
			want:    [][2]int{{5, nc}, {0, nc}},
		},
		{
			// With k=1, 1/(1+1) from rank 1 equals 2/(1+3) from rank 3 at
			// weight 2: one signal each, the better best rank (note 9) first.
			name: "better best rank first",
			lists: []rankers.Ranked{
				list("s1", c(9, nc)),
				list("s2", c(20, nc), c(21, nc), c(2, nc)),
			},
			k:       1,
			weights: map[string]float64{"s2": 2},
			want:    [][2]int{{20, nc}, {21, nc}, {9, nc}, {2, nc}},
		},
		{
			name: "then the lower note id",
			lists: []rankers.Ranked{
				list("s1", c(7, nc), c(8, nc)),
				list("s2", c(3, nc), c(8, 0)),
			},
			k:    60,
			want: [][2]int{{3, nc}, {7, nc}, {8, nc}, {8, 0}},
		},
		{
			name: "then the lower chunk id",
			lists: []rankers.Ranked{
				list("s1", c(4, 2)),
				list("s2", c(4, 0)),
				list("s3", c(4, nc)),
			},
			k:    60,
			want: [][2]int{{4, nc}, {4, 0}, {4, 2}},
		},
		{
			// Same score and signal count, both ranks mirrored: best
			// rank 1 each, so the note id decides.
			name: "mirrored ranks",
			lists: []rankers.Ranked{
				list("s1", c(6, nc), c(1, nc)),
				list("s2", c(1, nc), c(6, nc)),
			},
			k:    60,
			want: [][2]int{{1, nc}, {6, nc}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rankers.Fuse(tt.lists, tt.k, tt.weights)
			var order [][2]int
			for _, f := range got {
				order = append(order, [2]int{f.Note, f.Chunk})
			}
			if !reflect.DeepEqual(order, tt.want) {
				t.Errorf("order %v, want %v (scores %v)", order, tt.want, keys(got))
			}
			// Reversing the input lists must not change the order.
			rev := make([]rankers.Ranked, len(tt.lists))
			for i, l := range tt.lists {
				rev[len(rev)-1-i] = l
			}
			revGot := rankers.Fuse(rev, tt.k, tt.weights)
			for i := range got {
				if revGot[i].Note != got[i].Note || revGot[i].Chunk != got[i].Chunk {
					t.Errorf("list order changes the result: %v vs %v", keys(revGot), keys(got))
					break
				}
			}
		})
	}
}

// Fusion of many random lists is deterministic and sorted.
func TestFuseSortedAndDeterministic(t *testing.T) {
	var lists []rankers.Ranked
	for s := range 4 {
		l := rankers.Ranked{Signal: fmt.Sprintf("s%d", s)}
		for r := range 50 {
			l.Candidates = append(l.Candidates, rankers.Candidate{Note: (r*7 + s*13) % 40, Chunk: (r + s) % 3, Score: float64(50 - r)})
		}
		lists = append(lists, l)
	}
	got := rankers.Fuse(lists, 0, map[string]float64{"s0": 1.5, "s3": 0.25})
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Fatalf("item %d (%v) scores above item %d (%v)", i, got[i].Score, i-1, got[i-1].Score)
		}
	}
	seen := map[[2]int]bool{}
	for _, f := range got {
		k := [2]int{f.Note, f.Chunk}
		if seen[k] {
			t.Fatalf("item %v fused twice", k)
		}
		seen[k] = true
	}
	for range 5 {
		if again := rankers.Fuse(lists, 0, map[string]float64{"s0": 1.5, "s3": 0.25}); !reflect.DeepEqual(got, again) {
			t.Fatal("Fuse is not deterministic")
		}
	}
}
