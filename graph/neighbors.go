package graph

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// CommonTagMinNotes is the vault size from which a tag carried by more
// than half of the notes is ignored when relating notes by tags: it says
// nothing about two notes (think "zettel" or "note" on every file). Small
// vaults keep every tag.
const CommonTagMinNotes = 20

// TagSiblings relates notes through the tags they share. Tags compare
// case-insensitively and exactly ("cooking" and "cooking/baking" are
// different tags). Build it once per snapshot; it is immutable and safe
// for concurrent use.
type TagSiblings struct {
	snap     *vault.Snapshot
	notes    [][]int32 // tag id → notes carrying it, ascending
	noteTags [][]int32 // note → tag ids, in the order of the note's Tags
	weight   []float64 // tag id → log(notes / notes carrying it): rarer is heavier
	common   []bool    // tag id → ignored as too common
	pool     sync.Pool // *tagScratch
}

// tagScratch is per-call counting space, reset after use.
type tagScratch struct {
	count   []uint16
	weight  []float64
	touched []int32
}

// NewTagSiblings indexes the tags of every note of a snapshot.
func NewTagSiblings(s *vault.Snapshot) *TagSiblings {
	t := &TagSiblings{snap: s, noteTags: make([][]int32, len(s.Notes))}
	ids := map[string]int32{}
	for i, n := range s.Notes {
		for _, tag := range n.Tags {
			key := vault.FoldTag(tag)
			id, ok := ids[key]
			if !ok {
				id = int32(len(t.notes))
				ids[key] = id
				t.notes = append(t.notes, nil)
			}
			t.notes[id] = append(t.notes[id], int32(i))
			t.noteTags[i] = append(t.noteTags[i], id)
		}
	}
	total := float64(len(s.Notes))
	t.weight = make([]float64, len(t.notes))
	t.common = make([]bool, len(t.notes))
	for id, ns := range t.notes {
		t.weight[id] = math.Log(1 + total/float64(len(ns)))
		t.common[id] = len(s.Notes) >= CommonTagMinNotes && 2*len(ns) > len(s.Notes)
	}
	n := len(s.Notes)
	t.pool.New = func() any { return &tagScratch{count: make([]uint16, n), weight: make([]float64, n)} }
	return t
}

// Sibling is a note that shares tags with another one.
type Sibling struct {
	Note int
	// Shared are the shared tags, spelled and ordered as on the other
	// note.
	Shared []string
}

// Ignored returns the tags of a note that are too common to relate notes
// (see CommonTagMinNotes), spelled as on the note.
func (t *TagSiblings) Ignored(note int) []string {
	var out []string
	for k, id := range t.noteTags[note] {
		if t.common[id] {
			out = append(out, t.snap.Notes[note].Tags[k])
		}
	}
	return out
}

// Siblings returns up to limit notes sharing at least one tag (not an
// ignored one) with note, never note itself: most shared tags first, then
// the rarer shared tags, then by path. total counts every such note.
func (t *TagSiblings) Siblings(note, limit int) (sibs []Sibling, total int) {
	if note < 0 || note >= len(t.noteTags) {
		return nil, 0
	}
	s := t.pool.Get().(*tagScratch)
	defer t.pool.Put(s)
	for _, id := range t.noteTags[note] {
		if t.common[id] {
			continue
		}
		for _, o := range t.notes[id] {
			if int(o) == note {
				continue
			}
			if s.count[o] == 0 {
				s.touched = append(s.touched, o)
			}
			s.count[o]++
			s.weight[o] += t.weight[id]
		}
	}
	total = len(s.touched)
	slices.SortFunc(s.touched, func(a, b int32) int {
		if c := cmp.Compare(s.count[b], s.count[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(s.weight[b], s.weight[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // ids follow paths
	})
	for _, o := range s.touched[:min(max(limit, 0), total)] {
		sibs = append(sibs, Sibling{Note: int(o), Shared: t.shared(note, int(o))})
	}
	for _, o := range s.touched {
		s.count[o], s.weight[o] = 0, 0
	}
	s.touched = s.touched[:0]
	return sibs, total
}

// shared lists the (not ignored) tags of note that other also carries.
func (t *TagSiblings) shared(note, other int) []string {
	var out []string
	for k, id := range t.noteTags[note] {
		if !t.common[id] && slices.Contains(t.noteTags[other], id) {
			out = append(out, t.snap.Notes[note].Tags[k])
		}
	}
	return out
}
