// Package enginetest builds and compares search engines for tests: the
// product's default indexed engine, and a live engine, updated change by
// change, against one freshly built from the same files, which must
// answer every question the same way.
package enginetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Queries touch the words of vaulttest's mutator, the fixture's topics
// and names that come and go: a query list for comparing engines.
var Queries = []string{"alpha bravo", "sourdough hydration", "garden tomato", "python graph search",
	"index watch", "café", "delta7", "tag3", "november oscar papa", "now known by another name", "appended", "levain"}

// Tolerance bounds the difference of two scores that count as equal: an
// updated index sums the same floats in another order.
const Tolerance = 1e-4

// Diff describes the first difference between engines a and b, or "":
// notes and their content, the resolution of every link, backlinks,
// unresolved links, tags, and the hits and scores of each query at both
// granularities.
func Diff(ctx context.Context, a, b *search.Engine, queries []string) string {
	if d := snapshotDiff(a.Snapshot(), b.Snapshot()); d != "" {
		return d
	}
	ga, gb := a.Graph(), b.Graph()
	for i, n := range a.Snapshot().Notes {
		if x, y := edges(ga.Backlinks(i)), edges(gb.Backlinks(i)); !slices.Equal(x, y) {
			return fmt.Sprintf("backlinks of %s: %v vs %v", n.Path, x, y)
		}
		if x, y := edges(ga.Outbound(i)), edges(gb.Outbound(i)); !slices.Equal(x, y) {
			return fmt.Sprintf("outbound links of %s: %v vs %v", n.Path, x, y)
		}
	}
	if x, y := len(ga.Unresolved()), len(gb.Unresolved()); x != y {
		return fmt.Sprintf("%d unresolved links vs %d", x, y)
	}
	if x, y := vault.NewTags(a.Snapshot()).Counts(nil), vault.NewTags(b.Snapshot()).Counts(nil); !slices.Equal(x, y) {
		return fmt.Sprintf("tags %v vs %v", x, y)
	}
	if x, y := a.Signals(), b.Signals(); !slices.Equal(x, y) {
		return fmt.Sprintf("signals %v vs %v", x, y)
	}
	for _, q := range queries {
		for _, gran := range []string{search.GranularityNote, search.GranularityBlock} {
			req := search.Request{Query: q, Limit: 20, GraphBoost: true, Granularity: gran}
			ra, errA := a.Search(ctx, req)
			rb, errB := b.Search(ctx, req)
			if (errA == nil) != (errB == nil) {
				return fmt.Sprintf("query %q: errors %v vs %v", q, errA, errB)
			}
			if errA != nil {
				continue
			}
			if d := hitsDiff(ra, rb); d != "" {
				return fmt.Sprintf("query %q (%s): %s", q, gran, d)
			}
		}
	}
	return ""
}

func edges(es []graph.Edge) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = fmt.Sprintf("%d>%d#%d", e.From, e.To, e.Link)
	}
	slices.Sort(out)
	return out
}

// hitsDiff compares two result lists: the same hits with the same scores,
// where hits whose scores tie within Tolerance may come in either order.
func hitsDiff(a, b *search.Result) string {
	if a.TotalCandidates != b.TotalCandidates {
		return fmt.Sprintf("%d candidates vs %d", a.TotalCandidates, b.TotalCandidates)
	}
	if len(a.Hits) != len(b.Hits) {
		return fmt.Sprintf("%d hits vs %d", len(a.Hits), len(b.Hits))
	}
	for i := range a.Hits {
		x, y := a.Hits[i], b.Hits[i]
		if math.Abs(x.Score-y.Score) > Tolerance*math.Max(1, math.Abs(x.Score)) {
			return fmt.Sprintf("hit %d: %s %.6f vs %s %.6f", i, x.Path, x.Score, y.Path, y.Score)
		}
		if x.Path == y.Path && x.Chunk == y.Chunk {
			continue
		}
		if !tiedElsewhere(a.Hits, b.Hits, i) {
			return fmt.Sprintf("hit %d: %s#%d %.6f vs %s#%d %.6f", i, x.Path, x.Chunk, x.Score, y.Path, y.Chunk, y.Score)
		}
	}
	return ""
}

// tiedElsewhere reports whether b's hit i appears in a among hits with
// the same score (within Tolerance), i.e. the lists differ only in the
// order of ties.
func tiedElsewhere(a, b []search.Hit, i int) bool {
	for _, h := range a {
		if h.Path == b[i].Path && h.Chunk == b[i].Chunk && math.Abs(h.Score-b[i].Score) <= Tolerance*math.Max(1, math.Abs(h.Score)) {
			return true
		}
	}
	return i == len(a)-1 // the last place: the tie may continue past the cut
}

func snapshotDiff(a, b *vault.Snapshot) string {
	if len(a.Notes) != len(b.Notes) {
		return fmt.Sprintf("%d notes vs %d (%s)", len(a.Notes), len(b.Notes), pathDiff(a, b))
	}
	for i := range a.Notes {
		x, y := a.Notes[i], b.Notes[i]
		if x.Path != y.Path || x.Hash != y.Hash {
			return fmt.Sprintf("note %d: %s %s vs %s %s", i, x.Path, x.Hash, y.Path, y.Hash)
		}
		if !slices.Equal(x.Links, y.Links) {
			return fmt.Sprintf("links of %s: %+v vs %+v", x.Path, x.Links, y.Links)
		}
	}
	if len(a.Attachments) != len(b.Attachments) {
		return fmt.Sprintf("%d attachments vs %d", len(a.Attachments), len(b.Attachments))
	}
	return ""
}

func pathDiff(a, b *vault.Snapshot) string {
	in := func(s *vault.Snapshot, p string) bool { _, ok := s.NoteIDExact(p); return ok }
	var out []string
	for _, n := range a.Notes {
		if !in(b, n.Path) {
			out = append(out, "-"+n.Path)
		}
	}
	for _, n := range b.Notes {
		if !in(a, n.Path) {
			out = append(out, "+"+n.Path)
		}
	}
	return strings.Join(out, " ")
}
