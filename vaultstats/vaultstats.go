// Package vaultstats counts what a vault holds: notes, PDFs, attachments,
// sizes, words, frontmatter, orphans and dead ends, broken links, tags and
// modification times.
package vaultstats

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Stats describes one snapshot. Every note count is over markdown notes.
type Stats struct {
	Notes, PDFs, Attachments int
	// Bytes is the size of the markdown notes; AttachmentBytes that of the
	// attachments.
	Bytes, AttachmentBytes int64
	// Words approximates the words of the note bodies (see CountWords).
	Words int
	// NotesWithFrontmatter counts notes with a valid, non-empty YAML
	// frontmatter.
	NotesWithFrontmatter int
	// Orphans have no resolved link to or from another note; DeadEnds are
	// linked to but link to no note.
	Orphans, DeadEnds int
	// BrokenLinks counts link occurrences that resolve to nothing;
	// UnresolvedTargets their distinct targets (case-insensitive, NFC).
	BrokenLinks, UnresolvedTargets int
	// Tags are the tags with their note counts (parents of nested tags
	// included), the most used first, ties in the tag index's order.
	Tags []vault.TagCount
	// ModTimes are the markdown notes' modification times, ascending.
	ModTimes []time.Time
	// Warnings counts the problems met while loading.
	Warnings int
	// LoadedAt is when the snapshot was loaded.
	LoadedAt time.Time
}

// Compute walks the snapshot once; g is its link graph and tags its tag
// index.
func Compute(snap *vault.Snapshot, g *graph.Graph, tags *vault.Tags) *Stats {
	st := &Stats{}
	for i, n := range snap.Notes {
		if n.Kind == vault.KindPDF {
			st.PDFs++
			continue
		}
		st.Notes++
		st.Bytes += n.Size
		st.Words += CountWords(n.Body)
		if len(n.Frontmatter) > 0 {
			st.NotesWithFrontmatter++
		}
		out, in := len(g.Outbound(i)) > 0, len(g.Backlinks(i)) > 0
		st.Orphans += b2i(!out && !in)
		st.DeadEnds += b2i(!out && in)
		st.ModTimes = append(st.ModTimes, n.ModTime)
	}
	slices.SortFunc(st.ModTimes, func(a, b time.Time) int { return a.Compare(b) })
	st.Attachments = len(snap.Attachments)
	for _, a := range snap.Attachments {
		st.AttachmentBytes += a.Size
	}
	st.BrokenLinks, st.UnresolvedTargets = unresolvedCounts(g)
	st.Tags = slices.Clone(tags.Counts(nil))
	slices.SortStableFunc(st.Tags, func(a, b vault.TagCount) int { return b.Count - a.Count })
	st.Warnings = len(snap.Warnings)
	st.LoadedAt = snap.LoadedAt
	return st
}

// ModifiedSince counts the markdown notes modified at or after t.
func (st *Stats) ModifiedSince(t time.Time) int {
	first, _ := slices.BinarySearchFunc(st.ModTimes, t, func(a, b time.Time) int { return a.Compare(b) })
	return len(st.ModTimes) - first
}

// unresolvedCounts returns the unresolved link occurrences and their
// distinct targets (case-insensitive).
func unresolvedCounts(g *graph.Graph) (links, targets int) {
	seen := map[string]bool{}
	for _, u := range g.Unresolved() {
		seen[strings.ToLower(norm.NFC.String(g.UnresolvedTarget(u)))] = true
	}
	return len(g.Unresolved()), len(seen)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CountWords approximates the words of a text: runs of non-space
// characters, and every Han, Hiragana or Katakana character on its own
// (those scripts do not separate words with spaces).
func CountWords(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			space := c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
			n += b2i(!space && !inWord)
			inWord = !space
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case analysis.IsCJK(r) && !unicode.Is(unicode.Hangul, r): // Korean puts spaces between words
			n++
			inWord = false
		case unicode.IsSpace(r):
			inWord = false
		default:
			n += b2i(!inWord)
			inWord = true
		}
	}
	return n
}
