package rankers

import (
	"cmp"
	"math/bits"
	"slices"
)

// FusedNotes returns the first n distinct notes of Fuse(lists, k,
// weights), in that order, without building each item's map of signal
// hits: search needs only these notes from its first pass (the feedback
// notes) and fuses again once feedback has run. Items are scored and
// ordered exactly as Fuse does (the same sums in the same order, the
// same ties), with the signals that found an item kept as a bit set.
func FusedNotes(lists []Ranked, k float64, weights map[string]float64, n int) []int {
	bit := map[string]uint64{}
	for _, l := range lists {
		if _, ok := bit[l.Signal]; !ok {
			bit[l.Signal] = 1 << len(bit)
		}
	}
	if len(bit) > 64 {
		return firstNotes(Fuse(lists, k, weights), n, func(f Fused) int { return f.Note }) // more signals than bits
	}
	if k <= 0 {
		k = DefaultRRFK
	}
	type key struct{ note, chunk int }
	size := 0
	for _, l := range lists {
		size += len(l.Candidates)
	}
	index := make(map[key]int, size)
	items := make([]fusedItem, 0, size)
	for _, l := range lists {
		w, ok := weights[l.Signal]
		if !ok {
			w = 1
		}
		b := bit[l.Signal]
		for r, c := range l.Candidates {
			kk := key{c.Note, c.Chunk}
			i, seen := index[kk]
			if !seen {
				i = len(items)
				index[kk] = i
				items = append(items, fusedItem{note: c.Note, chunk: c.Chunk, best: r + 1})
			}
			it := &items[i]
			if it.signals&b != 0 {
				continue // a ranker listing an item twice counts once
			}
			it.score += w / (k + float64(r+1))
			it.signals |= b
			it.best = min(it.best, r+1)
		}
	}
	slices.SortFunc(items, compareFusedItems)
	return firstNotes(items, n, func(it fusedItem) int { return it.note })
}

// fusedItem is a Fused without its map: the signals that found it as a
// bit set, and its best rank among them.
type fusedItem struct {
	note, chunk int
	score       float64
	signals     uint64
	best        int
}

// compareFusedItems is compareFused for fusedItems.
func compareFusedItems(a, b fusedItem) int {
	if a.score != b.score {
		return cmp.Compare(b.score, a.score)
	}
	if na, nb := bits.OnesCount64(a.signals), bits.OnesCount64(b.signals); na != nb {
		return cmp.Compare(nb, na)
	}
	if a.best != b.best {
		return cmp.Compare(a.best, b.best)
	}
	if a.note != b.note {
		return cmp.Compare(a.note, b.note)
	}
	return cmp.Compare(a.chunk, b.chunk)
}

// firstNotes returns the first n distinct notes of items.
func firstNotes[T any](items []T, n int, note func(T) int) []int {
	out := make([]int, 0, n)
	for _, it := range items {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, note(it)) {
			out = append(out, note(it))
		}
	}
	return out
}
