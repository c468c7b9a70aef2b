package tools

import (
	"strings"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/textsearch"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// metaCache holds what the metadata and text tools derive from one
// engine's snapshot (tag counts, a frontmatter key index, vault stats,
// the text search index). Each part is built on first use, once per engine:
// a write swaps in a new engine and the next call rebuilds for it.
type metaCache struct{ perEngine[metaDerived] }

// metaDerived is the derived data of one engine; immutable once built.
type metaDerived struct {
	eng *search.Engine

	tagsOnce sync.Once
	tags     *vault.TagIndex

	keysOnce sync.Once
	keys     map[string]*fmKeyNotes // search.FoldKey(key) → notes with it

	statsOnce sync.Once
	stats     *vaultStats

	textOnce sync.Once
	text     *textsearch.Index
}

// get returns the derived data of e, replacing the cached engine's.
func (c *metaCache) get(e *search.Engine) *metaDerived {
	return c.derive(e, func(e *search.Engine) *metaDerived { return &metaDerived{eng: e} })
}

// tagIndex counts the snapshot's tags.
func (d *metaDerived) tagIndex() *vault.TagIndex {
	d.tagsOnce.Do(func() { d.tags = vault.NewTagIndex(d.eng.Snapshot()) })
	return d.tags
}

// fmEntry is a note having a frontmatter key: the key as spelled there
// and its value. several: the note spells the key more than one way
// ("Tags" and "tags"), so the value depends on the spelling asked for.
type fmEntry struct {
	note    int
	key     string
	value   any
	several bool
}

// fmKeyNotes are the notes having one (folded) frontmatter key, in path
// order, with their values' match forms computed on the first search.
type fmKeyNotes struct {
	entries []fmEntry
	once    sync.Once
	forms   []fmForms
}

// fmForms are a compared value's scalars prepared for matching:
// canonical for equals (search.CanonicalForms), lower-cased for contains.
type fmForms struct{ canon, lower []string }

func newFMForms(compared any) fmForms {
	return fmForms{canon: search.CanonicalForms(compared), lower: lowerForms(compared)}
}

// valueForms returns the match forms of every entry's compared value
// (see search.FrontmatterCompared).
func (k *fmKeyNotes) valueForms(snap *vault.Snapshot) []fmForms {
	k.once.Do(func() {
		k.forms = make([]fmForms, len(k.entries))
		for i, e := range k.entries {
			_, cmp, _ := search.FrontmatterCompared(snap.Notes[e.note], e.key)
			k.forms[i] = newFMForms(cmp)
		}
	})
	return k.forms
}

// keyIndex maps every frontmatter key (folded) to the notes that have it.
func (d *metaDerived) keyIndex() map[string]*fmKeyNotes {
	d.keysOnce.Do(func() {
		d.keys = map[string]*fmKeyNotes{}
		for i, n := range d.eng.Snapshot().Notes {
			for k, v := range n.Frontmatter {
				fk := search.FoldKey(k)
				kn := d.keys[fk]
				if kn == nil {
					kn = &fmKeyNotes{}
					d.keys[fk] = kn
				}
				if last := len(kn.entries) - 1; last >= 0 && kn.entries[last].note == i {
					kn.entries[last].several = true
					continue
				}
				kn.entries = append(kn.entries, fmEntry{note: i, key: k, value: v})
			}
		}
	})
	return d.keys
}

// lookup returns the note's value of key the way filter_frontmatter
// finds it, and the match forms of the value it compares (see
// search.FrontmatterCompared); forms are the entry's precomputed ones.
func (e fmEntry) lookup(n *vault.Note, key string, forms fmForms) (any, fmForms, bool) {
	if !e.several && strings.EqualFold(e.key, key) {
		return e.value, forms, true
	}
	raw, cmp, ok := search.FrontmatterCompared(n, key)
	return raw, newFMForms(cmp), ok
}

// vaultStats computes the snapshot's statistics.
func (d *metaDerived) vaultStats() *vaultStats {
	d.statsOnce.Do(func() { d.stats = computeStats(d.eng, d.tagIndex()) })
	return d.stats
}

// textIndex returns the text search index of the snapshot.
func (d *metaDerived) textIndex() *textsearch.Index {
	d.textOnce.Do(func() { d.text = textsearch.New(d.eng.Snapshot()) })
	return d.text
}
