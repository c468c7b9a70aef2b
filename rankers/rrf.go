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
	n := 0
	for _, l := range lists {
		n += len(l.Candidates)
	}
	hits := make([]map[string]SignalHit, 0, n) // by item id
	items := accumulate(lists, k, weights, func(id int, signal string, h SignalHit) {
		if id == len(hits) {
			hits = append(hits, map[string]SignalHit{})
		}
		hits[id][signal] = h
	})
	if len(items) == 0 {
		return nil
	}
	out := make([]Fused, len(items))
	for i, it := range items {
		out[i] = Fused{Note: it.note, Chunk: it.chunk, Score: it.score, Signals: hits[it.id]}
	}
	return out
}

// FusedNotes returns the first n distinct notes of Fuse(lists, k,
// weights), in that order, without building each item's map of signal
// hits: search needs only these notes from its first pass (the feedback
// notes) and fuses again once feedback has run.
func FusedNotes(lists []Ranked, k float64, weights map[string]float64, n int) []int {
	items := accumulate(lists, k, weights, nil)
	out := make([]int, 0, n)
	for _, it := range items {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, it.note) {
			out = append(out, it.note)
		}
	}
	return out
}

// fusedItem is one item's running fusion: its RRF sum, how many distinct
// signals found it and its best rank among them; id is its order of first
// appearance.
type fusedItem struct {
	note, chunk int
	score       float64
	signals     int    // distinct signals that found it
	found       uint64 // which of the first 64 signal ids found it
	best        int
	id          int
}

// accumulate sums the lists' reciprocal ranks per item and returns the
// items in fused order. A signal counts once per item, even when it lists
// the item twice or names several lists; hit, if not nil, sees each
// counted (item id, signal, rank and score).
func accumulate(lists []Ranked, k float64, weights map[string]float64, hit func(id int, signal string, h SignalHit)) []fusedItem {
	if k <= 0 {
		k = DefaultRRFK
	}
	type key struct{ note, chunk int }
	n := 0
	for _, l := range lists {
		n += len(l.Candidates)
	}
	// Sized for every candidate distinct: no growth of either.
	index := make(map[key]int, n)
	items := make([]fusedItem, 0, n)
	var names []string           // signal ids, in order of first list
	var overflow map[[2]int]bool // (signal id ≥ 64, item id) counted
	for _, l := range lists {
		w, ok := weights[l.Signal]
		if !ok {
			w = 1
		}
		sig := slices.Index(names, l.Signal)
		if sig < 0 {
			sig = len(names)
			names = append(names, l.Signal)
		}
		for r, c := range l.Candidates {
			kk := key{c.Note, c.Chunk}
			i, ok := index[kk]
			if !ok {
				i = len(items)
				index[kk] = i
				items = append(items, fusedItem{note: c.Note, chunk: c.Chunk, best: r + 1, id: i})
			}
			it := &items[i]
			if sig < 64 {
				if it.found&(1<<sig) != 0 {
					continue // a ranker listing an item twice counts once
				}
				it.found |= 1 << sig
			} else {
				if overflow[[2]int{sig, i}] {
					continue
				}
				if overflow == nil {
					overflow = map[[2]int]bool{}
				}
				overflow[[2]int{sig, i}] = true
			}
			it.score += w / (k + float64(r+1))
			it.signals++
			it.best = min(it.best, r+1)
			if hit != nil {
				hit(i, l.Signal, SignalHit{Rank: r + 1, Score: c.Score})
			}
		}
	}
	slices.SortFunc(items, compareFusedItems)
	return items
}

// compareFusedItems orders by score, then signal count, best rank, note
// and chunk.
func compareFusedItems(a, b fusedItem) int {
	if a.score != b.score {
		return cmp.Compare(b.score, a.score)
	}
	if a.signals != b.signals {
		return cmp.Compare(b.signals, a.signals)
	}
	if a.best != b.best {
		return cmp.Compare(a.best, b.best)
	}
	if a.note != b.note {
		return cmp.Compare(a.note, b.note)
	}
	return cmp.Compare(a.chunk, b.chunk)
}
