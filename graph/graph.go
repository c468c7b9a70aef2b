// Package graph is the wikilink graph of a snapshot: outbound links,
// backlinks, unresolved links and in-degree, computed once so every graph
// question is a lookup. It also reranks search results by links between
// the top hits (see [Graph.Boost]).
package graph

import (
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Edge is one resolved link between two different notes.
type Edge struct {
	From, To int // note ids
	Link     int // index into the From note's Links
}

// Unresolved is a link whose target exists nowhere in the vault.
type Unresolved struct {
	From int
	Link int
}

// Graph holds the link structure of one snapshot. It is immutable.
type Graph struct {
	snap       *vault.Snapshot
	out, in    [][]Edge
	targets    [][]int // note → distinct linked notes, ascending
	attachIn   map[string][]Edge
	unresolved []Unresolved
}

// New builds the graph of a snapshot.
func New(s *vault.Snapshot) *Graph {
	g := &Graph{
		snap:     s,
		out:      make([][]Edge, len(s.Notes)),
		in:       make([][]Edge, len(s.Notes)),
		targets:  make([][]int, len(s.Notes)),
		attachIn: map[string][]Edge{},
	}
	for from, n := range s.Notes {
		for li, l := range n.Links {
			switch l.Kind {
			case vault.LinkNote:
				to, ok := s.IndexExact(l.Resolved)
				if !ok || to == from {
					continue // same-note links are not graph edges
				}
				e := Edge{From: from, To: to, Link: li}
				g.out[from] = append(g.out[from], e)
				g.in[to] = append(g.in[to], e)
				g.targets[from] = append(g.targets[from], to)
			case vault.LinkAttachment:
				to, isDoc := s.IndexExact(l.Resolved) // a PDF indexed as a document
				if !isDoc {
					to = -1
				}
				e := Edge{From: from, To: to, Link: li}
				g.attachIn[l.Resolved] = append(g.attachIn[l.Resolved], e)
				if isDoc {
					g.out[from] = append(g.out[from], e)
					g.in[to] = append(g.in[to], e)
					g.targets[from] = append(g.targets[from], to)
				}
			default:
				g.unresolved = append(g.unresolved, Unresolved{From: from, Link: li})
			}
		}
		slices.Sort(g.targets[from])
		g.targets[from] = slices.Compact(g.targets[from])
	}
	return g
}

// Snapshot returns the snapshot the graph was built from.
func (g *Graph) Snapshot() *vault.Snapshot { return g.snap }

// Outbound returns the resolved links from a note to other notes, in
// document order.
func (g *Graph) Outbound(note int) []Edge { return g.out[note] }

// Backlinks returns the links from other notes to a note, ordered by the
// linking note's path, then by position.
func (g *Graph) Backlinks(note int) []Edge { return g.in[note] }

// AttachmentBacklinks returns the links to an attachment path.
func (g *Graph) AttachmentBacklinks(path string) []Edge { return g.attachIn[path] }

// Links reports whether note from links to note to.
func (g *Graph) Links(from, to int) bool {
	_, ok := slices.BinarySearch(g.targets[from], to)
	return ok
}

// InDegree is the number of distinct notes linking to a note.
func (g *Graph) InDegree(note int) int {
	n, last := 0, -1
	for _, e := range g.in[note] { // in is grouped by From (built in note order)
		if e.From != last {
			n++
			last = e.From
		}
	}
	return n
}

// Unresolved returns every link that resolved to nothing, ordered by the
// linking note's path, then by position.
func (g *Graph) Unresolved() []Unresolved { return g.unresolved }

// UnresolvedTarget returns the target text of an unresolved link.
func (g *Graph) UnresolvedTarget(u Unresolved) string {
	return strings.TrimSpace(g.snap.Notes[u.From].Links[u.Link].Target)
}
