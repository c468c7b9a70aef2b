package search

import (
	"path"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// This file exports filter_frontmatter's value comparison to
// obsidian_frontmatter_search, so both match values exactly alike, with
// forms that can be computed once per snapshot.

// FrontmatterCompared returns the value of key in a note's frontmatter as
// filter_frontmatter finds it (raw: the key matched exactly, else
// case-insensitively, the first such key in sorted order) and the value
// it compares: for tags/tag the note's parsed frontmatter tags and for
// aliases/alias its aliases, as lists (so "a, b" and [a, b] compare
// alike); for a value holding [[links]] (property links) a list of raw
// and, for each link, its target as written and the linked note's name
// and path, with and without ".md" (so "Jazz" matches "[[Jazz]]", as a
// link is matched in Obsidian by what it points to); raw for any other
// key. This is the value every frontmatter filter compares.
func FrontmatterCompared(n *vault.Note, key string) (raw, compared any, ok bool) {
	name, raw, ok := lookupKeyName(n.Frontmatter, key)
	if !ok {
		return nil, nil, false
	}
	switch strings.ToLower(key) {
	case "tags", "tag":
		return raw, toAny(n.FrontmatterTags), true
	case "aliases", "alias":
		return raw, toAny(n.Aliases), true
	}
	if forms := linkForms(n, name); len(forms) > 0 {
		return raw, append([]any{raw}, forms...), true
	}
	return raw, raw, true
}

// linkForms lists what the property links of a key point to: each
// link's target as written, and the resolved file's path with and
// without its extension and its name.
func linkForms(n *vault.Note, key string) []any {
	var out []any
	for _, l := range n.Links {
		if l.Property != key {
			continue
		}
		if t := strings.TrimSpace(l.Target); t != "" {
			out = append(out, t)
		}
		if l.Resolved == "" {
			continue
		}
		p := l.Resolved
		out = append(out, p)
		if l.Kind == vault.LinkNote {
			p = strings.TrimSuffix(p, path.Ext(p))
			out = append(out, p)
		}
		out = append(out, path.Base(p))
	}
	return out
}

// FrontmatterEquals is one filter_frontmatter condition: key equals want.
type FrontmatterEquals struct{ c fmCondition }

// NewFrontmatterEquals validates want (a string, number or boolean) for
// key. The error wraps ErrInvalid.
func NewFrontmatterEquals(key string, want any) (FrontmatterEquals, error) {
	c, ok := CanonicalValue(want)
	if !ok {
		return FrontmatterEquals{}, invalid("equals must be a string, number or boolean, got %s", typeName(want))
	}
	return FrontmatterEquals{fmCondition{key: key, values: []string{c}}}, nil
}

// Match reports whether a frontmatter value of the key equals the wanted
// value; a list matches when one of its elements does. For tags/tag keys a
// leading '#' is ignored on both sides.
func (m FrontmatterEquals) Match(v any) bool { return m.c.matches(v, isTagKey(m.c.key)) }

// FoldKey is the case- and normalisation-insensitive form of a frontmatter
// key, for indexing keys the way FrontmatterLookup finds them.
func FoldKey(key string) string { return strings.ToLower(norm.NFC.String(key)) }

// CanonicalForms flattens a frontmatter value (a scalar, or lists of
// scalars, nested or not) into the canonical forms of its scalars (see
// CanonicalValue); maps and nulls add nothing. Computed once, the forms
// let MatchForms test many wanted values cheaply.
func CanonicalForms(v any) []string {
	if list, ok := v.([]any); ok {
		var out []string
		for _, e := range list {
			out = append(out, CanonicalForms(e)...)
		}
		return out
	}
	if c, ok := CanonicalValue(v); ok {
		return []string{c}
	}
	return nil
}

// MatchForms is Match on a value given as its CanonicalForms: true when
// one of the forms equals the wanted value.
func (m FrontmatterEquals) MatchForms(forms []string) bool {
	want, tagKey := m.c.values[0], isTagKey(m.c.key)
	return slices.ContainsFunc(forms, func(f string) bool { return sameValue(f, want, tagKey) })
}
