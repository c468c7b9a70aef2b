// Package fmsearch finds notes by frontmatter: the notes having a key,
// whose value equals something (the comparison of obsidian_search's
// filter_frontmatter) or contains some text, in path order, paged with
// cursors.
package fmsearch

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of a query.
const (
	// MaxKeyRunes caps a key.
	MaxKeyRunes  = 256
	MaxLimit     = 1000
	DefaultLimit = 100
)

// Query is one search. Exactly one of Exists, Equals and Contains is
// given.
type Query struct {
	// Key is matched case-insensitively (exact spelling first).
	Key string
	// Exists, when true, finds every note that has the key.
	Exists *bool
	// Equals finds the notes whose value equals it (see
	// search.NewFrontmatterEquals).
	Equals any
	// Contains (a string or a number) finds the notes whose value, or an
	// element of a list value, contains it, case-insensitively.
	Contains any
	// Folder keeps only notes under this vault-relative folder.
	Folder string
	// Limit is the matches per page (1-MaxLimit; 0: DefaultLimit).
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}

// Result is one page of matches.
type Result struct {
	// Key is the key as searched (trimmed, NFC).
	Key string
	// Total counts the matching notes over all pages.
	Total int
	// Matches are in path order.
	Matches []Match
	// NextCursor continues with the next page ("" on the last one).
	NextCursor string
}

// Match is one note and its value of the key.
type Match struct {
	Note *vault.Note
	// Value is the note's value of the key, as decoded from YAML.
	Value any
}

// Searcher searches the frontmatter of one snapshot's notes. It maps every
// key to the notes having it, built on first use; safe for concurrent
// use.
type Searcher struct {
	snap *vault.Snapshot
	once sync.Once
	keys map[string]*fmKeyNotes // search.FoldKey(key) → notes with it
}

// New returns the index of a snapshot.
func New(snap *vault.Snapshot) *Searcher { return &Searcher{snap: snap} }

// Build derives the key index now (Search does it on first use).
func (x *Searcher) Build() { x.keyIndex() }

// fmQuery is a validated frontmatter search.
type fmQuery struct {
	key    string
	match  func(fmForms) bool
	digest string // identifies the query in its cursors
	after  string // path of the last match of the previous page
	limit  int
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
func (x *Searcher) keyIndex() map[string]*fmKeyNotes {
	x.once.Do(func() {
		x.keys = map[string]*fmKeyNotes{}
		for i, n := range x.snap.Notes {
			for k, v := range n.Frontmatter {
				fk := search.FoldKey(k)
				kn := x.keys[fk]
				if kn == nil {
					kn = &fmKeyNotes{}
					x.keys[fk] = kn
				}
				if last := len(kn.entries) - 1; last >= 0 && kn.entries[last].note == i {
					kn.entries[last].several = true
					continue
				}
				kn.entries = append(kn.entries, fmEntry{note: i, key: k, value: v})
			}
		}
	})
	return x.keys
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

// Search validates the query and runs it over the notes having the key.
// Its errors say what to fix in the query, or are the context's.
func (x *Searcher) Search(ctx context.Context, in Query) (*Result, error) {
	q, err := newFMQuery(in)
	if err != nil {
		return nil, err
	}
	snap := x.snap
	keep, err := search.FolderFilter(snap, in.Folder)
	if err != nil {
		return nil, err
	}
	out := &Result{Key: q.key, Matches: []Match{}}
	kn := x.keyIndex()[search.FoldKey(q.key)]
	if kn == nil {
		return out, ctx.Err()
	}
	forms := kn.valueForms(snap)
	for i, e := range kn.entries {
		n := snap.Notes[e.note]
		if keep != nil && !keep(e.note) {
			continue
		}
		v, f, ok := e.lookup(n, q.key, forms[i])
		if !ok || !q.match(f) {
			continue
		}
		out.Total++
		if q.after != "" && n.Path <= q.after {
			continue
		}
		if len(out.Matches) == q.limit {
			if out.NextCursor == "" {
				out.NextCursor = fmCursor(q.digest, out.Matches[len(out.Matches)-1].Note.Path)
			}
			continue
		}
		out.Matches = append(out.Matches, Match{Note: n, Value: v})
	}
	return out, ctx.Err()
}

// newFMQuery validates the arguments.
func newFMQuery(in Query) (fmQuery, error) {
	q := fmQuery{key: norm.NFC.String(strings.TrimSpace(in.Key)), limit: cmp.Or(in.Limit, DefaultLimit)}
	switch {
	case q.key == "":
		return q, errors.New("key is empty")
	case utf8.RuneCountInString(q.key) > MaxKeyRunes:
		return q, fmt.Errorf("key is longer than %d characters", MaxKeyRunes)
	case q.limit < 1 || q.limit > MaxLimit:
		return q, fmt.Errorf("limit must be between 1 and %d, got %d", MaxLimit, q.limit)
	}
	mode, match, err := fmCondition(q.key, in)
	if err != nil {
		return q, err
	}
	q.match = match
	q.digest = fmDigest(q.key, mode, in.Folder)
	if in.Cursor != "" {
		if q.after, err = parseFMCursor(in.Cursor, q.digest); err != nil {
			return q, err
		}
	}
	return q, nil
}

// fmCondition builds the one condition given (exists, equals or
// contains); mode names it for cursors.
func fmCondition(key string, in Query) (mode string, match func(fmForms) bool, err error) {
	given := 0
	for _, set := range []bool{in.Exists != nil, in.Equals != nil, in.Contains != nil} {
		if set {
			given++
		}
	}
	switch {
	case given != 1:
		return "", nil, errors.New("give exactly one of exists, equals or contains")
	case in.Exists != nil && !*in.Exists:
		return "", nil, errors.New("exists must be true (it finds the notes that have the key)")
	case in.Exists != nil:
		return "exists", func(fmForms) bool { return true }, nil
	case in.Equals != nil:
		return equalsMatcher(key, in.Equals)
	}
	return containsMatcher(key, in.Contains)
}

func equalsMatcher(key string, want any) (string, func(fmForms) bool, error) {
	eq, err := search.NewFrontmatterEquals(key, want)
	if err != nil {
		return "", nil, err
	}
	c, _ := search.CanonicalValue(want)
	return "equals=" + c, func(f fmForms) bool { return eq.MatchForms(f.canon) }, nil
}

func containsMatcher(key string, want any) (string, func(fmForms) bool, error) {
	var needle string
	switch x := want.(type) {
	case string:
		needle = strings.ToLower(norm.NFC.String(strings.TrimSpace(x)))
	case float64:
		needle, _ = search.CanonicalValue(x)
	default:
		return "", nil, fmt.Errorf("contains must be a string or a number, got %T", want)
	}
	if isTagsKey(key) {
		needle = strings.TrimLeft(needle, "#")
	}
	if needle == "" {
		return "", nil, errors.New("contains is empty (use exists: true to find every note with the key)")
	}
	return "contains=" + needle, func(f fmForms) bool {
		return slices.ContainsFunc(f.lower, func(s string) bool { return strings.Contains(s, needle) })
	}, nil
}

// lowerForms flattens a value into its scalars for contains: strings
// lower-cased (NFC already), other scalars in canonical form; maps and
// nulls add nothing.
func lowerForms(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, lowerForms(e)...)
		}
		return out
	case string:
		return []string{strings.ToLower(x)}
	}
	if c, ok := search.CanonicalValue(v); ok {
		return []string{c}
	}
	return nil
}

func isTagsKey(k string) bool {
	k = strings.ToLower(k)
	return k == "tags" || k == "tag"
}

// Cursors are "fm1:<digest>:<last path>", base64url-encoded; the digest
// ties a cursor to the query that made it.
const fmCursorVersion = "fm1:"

func fmDigest(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

func fmCursor(digest, lastPath string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmCursorVersion + digest + ":" + lastPath))
}

func parseFMCursor(cursor, digest string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	rest, ok := strings.CutPrefix(string(raw), fmCursorVersion)
	if err != nil || !ok {
		return "", errors.New("invalid cursor: pass next_cursor from the previous page unchanged")
	}
	d, last, ok := strings.Cut(rest, ":")
	if !ok || last == "" {
		return "", errors.New("invalid cursor: pass next_cursor from the previous page unchanged")
	}
	if d != digest {
		return "", errors.New("cursor belongs to a different query (key, condition or folder changed)")
	}
	return last, nil
}
