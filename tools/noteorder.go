package tools

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// sortKey is what a listing is sorted by.
type sortKey int

const (
	byPath sortKey = iota // the snapshot's own order
	byMtime
	byTitle
)

// noteOrders holds, for one engine's snapshot, the note ids in each sort
// order (ascending, ties broken by path), computed once on first use.
type noteOrders struct {
	eng   *search.Engine
	mtime orderOnce
	title orderOnce

	tagsOnce sync.Once
	tags     [][]string // lower-cased tags of each note
}

// lowerTags returns the lower-cased tags of every note, by note id.
func (o *noteOrders) lowerTags() [][]string {
	o.tagsOnce.Do(func() {
		notes := o.eng.Snapshot().Notes
		o.tags = make([][]string, len(notes))
		for i, n := range notes {
			o.tags[i] = make([]string, len(n.Tags))
			for j, t := range n.Tags {
				o.tags[i][j] = strings.ToLower(t)
			}
		}
	})
	return o.tags
}

// hasTag reports whether lower-cased tags hold tag (lower-cased, no '#')
// or a tag nested under it, as vault.Note.HasTag does.
func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag || len(t) > len(tag) && t[len(tag)] == '/' && t[:len(tag)] == tag {
			return true
		}
	}
	return false
}

type orderOnce struct {
	once sync.Once
	ids  []int
}

// noteOrderCache keeps the orders of the current engine; a swapped-in
// engine gets new ones.
type noteOrderCache struct{ perEngine[noteOrders] }

func (c *noteOrderCache) get(e *search.Engine) *noteOrders {
	return c.derive(e, func(e *search.Engine) *noteOrders { return &noteOrders{eng: e} })
}

// ids returns the ascending order for a key (nil for byPath).
func (o *noteOrders) ids(key sortKey) []int {
	notes := o.eng.Snapshot().Notes
	switch key {
	case byMtime:
		o.mtime.once.Do(func() {
			o.mtime.ids = sortedIDs(len(notes), func(a, b int) int {
				return notes[a].ModTime.Compare(notes[b].ModTime)
			})
		})
		return o.mtime.ids
	case byTitle:
		o.title.once.Do(func() {
			lower := make([]string, len(notes))
			for i, n := range notes {
				lower[i] = strings.ToLower(n.Title)
			}
			o.title.ids = sortedIDs(len(notes), func(a, b int) int { return strings.Compare(lower[a], lower[b]) })
		})
		return o.title.ids
	}
	return nil
}

// sortedIDs sorts 0..n-1 by cmpFn, ties by id (which is path order).
func sortedIDs(n int, cmpFn func(a, b int) int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	slices.SortFunc(ids, func(a, b int) int { return cmp.Or(cmpFn(a, b), cmp.Compare(a, b)) })
	return ids
}

// walk yields (position, note id) in the requested order.
func (o *noteOrders) walk(ord listOrder) iter.Seq2[int, int] {
	ids := o.ids(ord.key)
	n := len(o.eng.Snapshot().Notes)
	at := func(i int) int {
		if ids == nil {
			return i
		}
		return ids[i]
	}
	return func(yield func(int, int) bool) {
		for i := range n {
			j := i
			if ord.desc {
				j = n - 1 - i
			}
			if !yield(i, at(j)) {
				return
			}
		}
	}
}

// listCursor is the decoded form of a next_cursor: an offset into the
// filtered, sorted list, and a fingerprint of the arguments it belongs to.
type listCursor struct {
	V      int    `json:"v"`
	Offset int    `json:"o"`
	Query  string `json:"q"`
}

func encodeListCursor(offset int, fp string) string {
	raw, _ := json.Marshal(listCursor{V: 1, Offset: offset, Query: fp})
	return base64.RawURLEncoding.EncodeToString(raw)
}

func errBadCursor() error {
	return errors.New("cursor is not a next_cursor of obsidian_list_notes; start again without cursor")
}

func decodeListCursor(cursor, fp string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, errBadCursor()
	}
	var c listCursor
	if err := json.Unmarshal(raw, &c); err != nil || c.V != 1 || c.Offset < 0 {
		return 0, errBadCursor()
	}
	if c.Query != fp {
		return 0, errors.New("cursor belongs to a listing with other filters or sort; pass the same arguments as for the first page, or start again without cursor")
	}
	return c.Offset, nil
}

// fingerprint identifies the filters and order of a listing (not the
// limit, which may change from page to page).
func fingerprint(q noteQuery, o listOrder, filter map[string]any) string {
	fm, _ := json.Marshal(filter) // map keys are sorted
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%s\x00%v\x00%d\x00%v",
		strings.ToLower(q.folder), q.tag, q.since.UnixNano(), q.before.UnixNano(), fm, q.includePDFs, o.key, o.desc)
	return fmt.Sprintf("%016x", h.Sum64())
}
