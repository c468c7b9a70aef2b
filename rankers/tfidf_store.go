package rankers

import (
	"maps"
	"slices"
)

// termDict maps terms to ids. It is copy-on-write across updates: a
// large base shared by every index made from it, and a small map of the
// terms added since, copied when it changes and folded into a new base
// when it grows large. Ids are never reused.
type termDict struct {
	base, extra map[string]uint32
	n           uint32
	// ownBase and ownExtra say which maps belong to this dict alone (may
	// be written); a clone owns neither.
	ownBase, ownExtra bool
}

// extraLimit is how large the added terms may grow before they are folded
// into a new base (a copy of the whole dictionary, so rarely).
const extraLimit = 1 << 14

func (d *termDict) lookup(term string) (uint32, bool) {
	if id, ok := d.extra[term]; ok {
		return id, true
	}
	id, ok := d.base[term]
	return id, ok
}

// clone is a dict that shares d's maps until it adds a term.
func (d termDict) clone() termDict { return termDict{base: d.base, extra: d.extra, n: d.n} }

// add returns the id of term, giving it a new one when it is unknown.
func (d *termDict) add(term string) uint32 {
	if id, ok := d.lookup(term); ok {
		return id
	}
	id := d.n
	d.n++
	switch {
	case d.base == nil: // the first build writes the base directly
		d.base, d.ownBase = map[string]uint32{}, true
		d.base[term] = id
	case d.ownBase:
		d.base[term] = id
	case len(d.extra) >= extraLimit:
		merged := make(map[string]uint32, len(d.base)+len(d.extra)+1)
		maps.Copy(merged, d.base)
		maps.Copy(merged, d.extra)
		merged[term] = id
		d.base, d.extra, d.ownBase, d.ownExtra = merged, nil, true, false
	default:
		if !d.ownExtra {
			d.extra, d.ownExtra = maps.Clone(d.extra), true
			if d.extra == nil {
				d.extra = map[string]uint32{}
			}
		}
		d.extra[term] = id
	}
	return id
}

// postingLists are the posting lists of every term id, in pages that an
// update copies only when it changes one of their lists: a one-note edit
// copies a few pages, not the whole vocabulary.
type postingLists struct {
	pages []*postingPage
}

const pageBits = 9

type postingPage [1 << pageBits][]posting

func (p postingLists) get(id uint32) []posting {
	if pg := int(id >> pageBits); pg < len(p.pages) {
		return p.pages[pg][id&(1<<pageBits-1)]
	}
	return nil
}

// clone shares every page with p.
func (p postingLists) clone() postingLists { return postingLists{pages: slices.Clone(p.pages)} }

// listWriter sets lists in a cloned postingLists, copying each shared page
// once.
type listWriter struct {
	p     *postingLists
	owned map[int]bool
}

func (w *listWriter) set(id uint32, ps []posting) {
	pg := int(id >> pageBits)
	if w.owned == nil {
		w.owned = map[int]bool{}
	}
	for pg >= len(w.p.pages) {
		w.p.pages = append(w.p.pages, new(postingPage))
		w.owned[len(w.p.pages)-1] = true
	}
	if !w.owned[pg] {
		cp := *w.p.pages[pg]
		w.p.pages[pg] = &cp
		w.owned[pg] = true
	}
	w.p.pages[pg][id&(1<<pageBits-1)] = ps
}

// terms is the number of term ids with a page (an upper bound).
func (p postingLists) terms() int { return len(p.pages) << pageBits }
