// Package linksuggest finds the notes a missing link target most likely
// meant: the notes whose name, title or alias is closest to it.
package linksuggest

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Suggester finds the notes whose name, title or alias is closest to
// a missing link target, fast enough to run for every unresolved link of
// a page (the snapshot's Suggest compares every note by edit distance,
// tens of milliseconds on a large vault). Candidates come from a trigram
// index; only the best few by trigram overlap are compared by edit
// distance, with the same acceptance rule as the snapshot's Suggest
// (distance at most max(len/2, 3), or the text contains the target).
// Immutable after construction; safe for concurrent use.
type Suggester struct {
	snap  *vault.Snapshot
	cands []candidate
	// The candidates holding trigram g are postings[start[id]:start[id+1]]
	// (ascending), where id = gramIDs[g].
	gramIDs  map[uint64]int32
	start    []int32
	postings []int32
	pool     sync.Pool // *scratch
	titles   sync.Map  // lower-cased target → []string, see Titles
}

// candidate is one lower-cased name, title or alias of a note.
type candidate struct {
	note int32
	text string
}

type scratch struct {
	count   []uint16
	touched []int32
	buckets [][]int32
	prev    []int
	cur     []int
	grams   []uint64
	target  []rune
	other   []rune
}

// New indexes the names, titles and aliases of the snapshot's notes.
func New(snap *vault.Snapshot) *Suggester {
	s := &Suggester{snap: snap, gramIDs: map[uint64]int32{}}
	for i, n := range snap.Notes {
		texts := append([]string{n.Name(), n.Title}, n.Aliases...)
		for k, t := range texts {
			t = strings.ToLower(strings.TrimSpace(t))
			if t == "" || slices.ContainsFunc(texts[:k], func(o string) bool { return strings.EqualFold(strings.TrimSpace(o), t) }) {
				continue
			}
			s.cands = append(s.cands, candidate{note: int32(i), text: t})
		}
	}
	// Two passes build the compact postings: count, then fill.
	var counts []int32
	var buf []uint64
	for _, c := range s.cands {
		buf = trigrams(c.text, buf[:0])
		for _, g := range buf {
			id, ok := s.gramIDs[g]
			if !ok {
				id = int32(len(counts))
				s.gramIDs[g] = id
				counts = append(counts, 0)
			}
			counts[id]++
		}
	}
	s.start = make([]int32, len(counts)+1)
	for id, n := range counts {
		s.start[id+1] = s.start[id] + n
	}
	s.postings = make([]int32, s.start[len(counts)])
	fill := slices.Clone(s.start[:len(counts)])
	for ci, c := range s.cands {
		buf = trigrams(c.text, buf[:0])
		for _, g := range buf {
			id := s.gramIDs[g]
			s.postings[fill[id]] = int32(ci)
			fill[id]++
		}
	}
	s.pool.New = func() any { return &scratch{count: make([]uint16, len(s.cands))} }
	return s
}

// holding returns the candidates holding a trigram.
func (s *Suggester) holding(g uint64) []int32 {
	id, ok := s.gramIDs[g]
	if !ok {
		return nil
	}
	return s.postings[s.start[id]:s.start[id+1]]
}

// trigrams appends the distinct trigrams of s, padded at both ends, each
// packed as three 21-bit runes.
func trigrams(s string, out []uint64) []uint64 {
	var w [3]rune // w[0] = 0: the padding rune
	n := 0
	push := func(r rune) {
		w[0], w[1], w[2] = w[1], w[2], r
		n++
		if n >= 2 {
			g := uint64(w[0])<<42 | uint64(w[1])<<21 | uint64(w[2])
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	for _, r := range s {
		push(r)
	}
	push(0)
	return out
}

// normalize turns a link target or title into the text suggestions
// compare: lower case, without ".md" or folders.
func normalize(ref string) string {
	ref = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(ref), ".md"))
	return strings.TrimSpace(ref[strings.LastIndexByte(ref, '/')+1:])
}

// Suggest returns up to limit note ids whose name, title or alias is
// closest to ref, best first (smaller distance, more shared trigrams,
// then path order).
func (s *Suggester) Suggest(ref string, limit int) []int {
	q := normalize(ref)
	if q == "" || limit <= 0 {
		return nil
	}
	sc := s.pool.Get().(*scratch)
	defer s.pool.Put(sc)
	pool := s.overlap(sc, q)
	bound := max(utf8.RuneCountInString(q)/2, 3)
	type scored struct {
		note, dist, overlap int
	}
	var best []scored
	for _, c := range pool {
		cand := s.cands[c]
		d := sc.distance(q, cand.text, bound)
		if strings.Contains(cand.text, q) {
			d = min(d, 1) // a fragment of a long title is a good guess
		}
		if d > bound {
			continue
		}
		i := slices.IndexFunc(best, func(b scored) bool { return b.note == int(cand.note) })
		switch {
		case i < 0:
			best = append(best, scored{int(cand.note), d, int(sc.count[c])})
		case d < best[i].dist:
			best[i].dist = d
		}
	}
	for _, c := range sc.touched {
		sc.count[c] = 0
	}
	slices.SortFunc(best, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(b.overlap, a.overlap), cmp.Compare(a.note, b.note))
	})
	out := make([]int, 0, min(limit, len(best)))
	for _, b := range best[:min(limit, len(best))] {
		out = append(out, b.note)
	}
	return out
}

// Titles returns up to 3 distinct titles of the notes closest to a
// missing link target (of its 6 closest notes: two notes may share a
// title), cached per target. The slice is shared: do not modify it.
func (s *Suggester) Titles(target string) []string {
	key := strings.ToLower(strings.TrimSpace(target))
	if v, ok := s.titles.Load(key); ok {
		return v.([]string)
	}
	out := []string{}
	for _, id := range s.Suggest(key, 6) {
		if t := s.snap.Notes[id].Title; !slices.Contains(out, t) && len(out) < 3 {
			out = append(out, t)
		}
	}
	s.titles.Store(key, out)
	return out
}

// overlap counts shared trigrams per candidate and returns the
// rankers.LinkSuggestPool candidates sharing the most (ties by candidate order).
// sc.count and sc.touched stay filled for the caller to reset.
func (s *Suggester) overlap(sc *scratch, q string) []int32 {
	sc.touched = sc.touched[:0]
	sc.grams = trigrams(q, sc.grams[:0])
	for _, g := range sc.grams {
		for _, c := range s.holding(g) {
			if sc.count[c] == 0 {
				sc.touched = append(sc.touched, c)
			}
			sc.count[c]++
		}
	}
	top := len(sc.grams)
	for len(sc.buckets) <= top {
		sc.buckets = append(sc.buckets, nil)
	}
	for i := range sc.buckets {
		sc.buckets[i] = sc.buckets[i][:0]
	}
	for _, c := range sc.touched {
		sc.buckets[sc.count[c]] = append(sc.buckets[sc.count[c]], c)
	}
	var pool []int32
	for k := top; k > 0 && len(pool) < rankers.LinkSuggestPool; k-- {
		b := sc.buckets[k]
		slices.Sort(b)
		pool = append(pool, b[:min(len(b), rankers.LinkSuggestPool-len(pool))]...)
	}
	return pool
}

// distance is the Levenshtein distance over runes, or bound+1 as soon as
// it must exceed bound.
func (sc *scratch) distance(a, b string, bound int) int {
	sc.target, sc.other = sc.target[:0], sc.other[:0]
	for _, r := range a {
		sc.target = append(sc.target, r)
	}
	for _, r := range b {
		sc.other = append(sc.other, r)
	}
	ra, rb := sc.target, sc.other
	if abs(len(ra)-len(rb)) > bound {
		return bound + 1
	}
	sc.prev = slices.Grow(sc.prev[:0], len(rb)+1)[:len(rb)+1]
	sc.cur = slices.Grow(sc.cur[:0], len(rb)+1)[:len(rb)+1]
	prev, cur := sc.prev, sc.cur
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
