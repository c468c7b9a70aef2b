package search

import (
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
// alike); raw for any other key. This is the value every frontmatter
// filter compares.
func FrontmatterCompared(n *vault.Note, key string) (raw, compared any, ok bool) {
	raw, ok = lookupKey(n.Frontmatter, key)
	if !ok {
		return nil, nil, false
	}
	switch strings.ToLower(key) {
	case "tags", "tag":
		return raw, toAny(n.FrontmatterTags), true
	case "aliases", "alias":
		return raw, toAny(n.Aliases), true
	}
	return raw, raw, true
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
