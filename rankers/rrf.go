package rankers

import (
	"cmp"
	"slices"
)

// Ranked is one signal's ranked list.
type Ranked struct {
	Signal     string
	Candidates []Candidate
}

// SignalHit is where one signal placed a fused item.
type SignalHit struct {
	Rank  int // 1-based
	Score float64
}

// Fused is an item after fusion: the sum of its reciprocal ranks and, per
// signal that found it, its rank and raw score.
type Fused struct {
	Note, Chunk int
	Score       float64
	Signals     map[string]SignalHit
}

// Fuse combines ranked lists with Reciprocal Rank Fusion:
// score = Σ weight_s / (k + rank_s). A missing weight counts as 1, so nil
// weights are the equal-weight default. Ties go to the item found by more
// signals, then to the better best rank, then to the lower note and chunk
// id, so the output is deterministic.
func Fuse(lists []Ranked, k float64, weights map[string]float64) []Fused {
	if k <= 0 {
		k = DefaultRRFK
	}
	type key struct{ note, chunk int }
	n := 0
	for _, l := range lists {
		n += len(l.Candidates)
	}
	if n == 0 {
		return nil
	}
	// Sized for every candidate distinct: no growth of either.
	index := make(map[key]int, n)
	out := make([]Fused, 0, n)
	for _, l := range lists {
		w, ok := weights[l.Signal]
		if !ok {
			w = 1
		}
		for r, c := range l.Candidates {
			kk := key{c.Note, c.Chunk}
			i, seen := index[kk]
			if !seen {
				i = len(out)
				index[kk] = i
				out = append(out, Fused{Note: c.Note, Chunk: c.Chunk, Signals: map[string]SignalHit{}})
			}
			if _, dup := out[i].Signals[l.Signal]; dup {
				continue // a ranker listing an item twice counts once
			}
			out[i].Score += w / (k + float64(r+1))
			out[i].Signals[l.Signal] = SignalHit{Rank: r + 1, Score: c.Score}
		}
	}
	slices.SortFunc(out, compareFused)
	return out
}

func compareFused(a, b Fused) int {
	if a.Score != b.Score {
		return cmp.Compare(b.Score, a.Score)
	}
	if len(a.Signals) != len(b.Signals) {
		return cmp.Compare(len(b.Signals), len(a.Signals))
	}
	if ra, rb := bestRank(a), bestRank(b); ra != rb {
		return cmp.Compare(ra, rb)
	}
	if a.Note != b.Note {
		return cmp.Compare(a.Note, b.Note)
	}
	return cmp.Compare(a.Chunk, b.Chunk)
}

func bestRank(f Fused) int {
	best := int(^uint(0) >> 1)
	for _, h := range f.Signals {
		best = min(best, h.Rank)
	}
	return best
}
