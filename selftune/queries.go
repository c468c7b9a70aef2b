// Package selftune builds known-item queries from a vault's own structure
// (the display text of its piped links, its headings, its aliases) and
// uses them to choose the vault's fusion weights: the vault grades the
// rankers on questions it answers itself.
package selftune

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Kinds of self-supervised queries.
const (
	// KindLink is a piped link's display text; the answer is the note
	// the link resolves to, Source the note holding the link.
	KindLink = "link"
	// KindHeading is a heading's text; the answer is its note.
	KindHeading = "heading"
	// KindAlias is a frontmatter alias; the answer is its note.
	KindAlias = "alias"
)

// Query is one known-item query: Text should find note Target. Source is
// the note the text was taken from (the linking note for KindLink, else
// Target).
type Query struct {
	Kind   string
	Text   string
	Target int
	Source int
}

// Build returns at most limit queries of the given kind from snap, sampled
// with a fixed seed so that the same vault always gives the same set.
// Kept, as for the vault-links sets: texts of ≥ 2 words (≥ 3 characters
// when written in CJK) that do not contain the answer's title and that
// name exactly one note across the vault.
func Build(snap *vault.Snapshot, kind string, limit int) []Query {
	var cands []Query
	var keys []string
	targets := map[string]map[int]bool{}
	add := func(q Query) {
		key := strings.ToLower(strings.Join(strings.Fields(q.Text), " "))
		if targets[key] == nil {
			keys = append(keys, key)
			targets[key] = map[int]bool{}
			cands = append(cands, q)
		}
		targets[key][q.Target] = true
	}
	for i, n := range snap.Notes {
		switch kind {
		case KindLink:
			for _, l := range n.Links {
				if t, ok := linkTarget(snap, l); ok && t != i && l.Alias != "" && !l.Embed {
					add(Query{Kind: kind, Text: l.Alias, Target: t, Source: i})
				}
			}
		case KindHeading:
			for _, h := range n.Headings {
				add(Query{Kind: kind, Text: h.Text, Target: i, Source: i})
			}
		case KindAlias:
			for _, a := range n.Aliases {
				add(Query{Kind: kind, Text: a, Target: i, Source: i})
			}
		}
	}
	var out []Query
	for i, q := range cands {
		if len(targets[keys[i]]) == 1 && EnoughText(q.Text) &&
			!strings.Contains(strings.ToLower(q.Text), strings.ToLower(snap.Notes[q.Target].Title)) {
			out = append(out, q)
		}
	}
	if len(out) > limit {
		r := rand.New(rand.NewPCG(12, 6))
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:limit]
		slices.SortFunc(out, func(a, b Query) int {
			if a.Source != b.Source {
				return a.Source - b.Source
			}
			return strings.Compare(a.Text, b.Text)
		})
	}
	return out
}

// linkTarget is the note a link resolves to.
func linkTarget(snap *vault.Snapshot, l vault.Link) (int, bool) {
	if l.Kind != vault.LinkNote {
		return 0, false
	}
	return snap.NoteID(l.Resolved)
}

// EnoughText reports whether s is long enough to be a known-item query:
// ≥ 2 words, or ≥ 3 CJK characters.
func EnoughText(s string) bool {
	if len(strings.Fields(s)) >= 2 {
		return true
	}
	cjk := 0
	for _, r := range s {
		if analysis.IsCJK(r) {
			cjk++
		}
	}
	return cjk >= 3
}
