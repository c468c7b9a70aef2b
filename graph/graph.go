// Package graph is the wikilink graph of a snapshot: outbound links,
// backlinks, unresolved links and in-degree, computed once so every graph
// question is a lookup. It also reranks search results by links between
// the top hits (see [Graph.Boost]).
package graph

import (
	"cmp"
	"maps"
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

// New builds the graph of a snapshot. Every note's backlinks are cut
// from one array sized by a first count, not grown by appends (at every
// start of a big vault).
func New(s *vault.Snapshot) *Graph {
	g := &Graph{
		snap:     s,
		out:      make([][]Edge, len(s.Notes)),
		in:       make([][]Edge, len(s.Notes)),
		targets:  make([][]int, len(s.Notes)),
		attachIn: map[string][]Edge{},
	}
	inDegree := make([]int, len(s.Notes))
	edges := 0
	for from := range s.Notes {
		ne := edgesOf(s, from)
		g.out[from], g.targets[from] = ne.out, ne.targets
		for _, e := range ne.out {
			inDegree[e.To]++
		}
		edges += len(ne.out)
		for _, a := range ne.attach {
			g.attachIn[a.path] = append(g.attachIn[a.path], a.edge)
		}
		g.unresolved = append(g.unresolved, ne.unresolved...)
	}
	all, off := make([]Edge, edges), 0
	for to, k := range inDegree {
		if k > 0 {
			g.in[to] = all[off : off : off+k] // capped: an append never reaches the next note's
			off += k
		}
	}
	for from := range s.Notes {
		for _, e := range g.out[from] {
			g.in[e.To] = append(g.in[e.To], e)
		}
	}
	return g
}

// noteEdges are the links of one note, sorted into the graph's parts.
type noteEdges struct {
	out        []Edge
	targets    []int
	attach     []attachEdge
	unresolved []Unresolved
}

type attachEdge struct {
	path string
	edge Edge
}

func edgesOf(s *vault.Snapshot, from int) noteEdges {
	var ne noteEdges
	links := s.Notes[from].Links
	if k := resolvedLinks(links); k > 0 {
		ne.out, ne.targets = make([]Edge, 0, k), make([]int, 0, k)
	}
	for li, l := range links {
		switch l.Kind {
		case vault.LinkNote:
			to, ok := s.NoteIDExact(l.Resolved)
			if !ok || to == from {
				continue // same-note links are not graph edges
			}
			ne.out = append(ne.out, Edge{From: from, To: to, Link: li})
			ne.targets = append(ne.targets, to)
		case vault.LinkAttachment:
			to, isDoc := s.NoteIDExact(l.Resolved) // a PDF indexed as a document
			if !isDoc {
				to = -1
			}
			e := Edge{From: from, To: to, Link: li}
			ne.attach = append(ne.attach, attachEdge{l.Resolved, e})
			if isDoc {
				ne.out = append(ne.out, e)
				ne.targets = append(ne.targets, to)
			}
		default:
			ne.unresolved = append(ne.unresolved, Unresolved{From: from, Link: li})
		}
	}
	slices.Sort(ne.targets)
	ne.targets = slices.Clip(slices.Compact(ne.targets))
	return ne
}

// resolvedLinks counts the links that resolved to a file: at most the
// note's edges.
func resolvedLinks(links []vault.Link) int {
	k := 0
	for _, l := range links {
		if l.Kind == vault.LinkNote || l.Kind == vault.LinkAttachment {
			k++
		}
	}
	return k
}

// Update returns the graph of snap, a snapshot with the same notes at the
// same ids as g's, where only the notes in changed may link differently
// (their content or their links' resolution changed). Only those notes'
// edges, and the backlinks of the notes they linked or link to, are
// rebuilt; g is not modified.
func (g *Graph) Update(snap *vault.Snapshot, changed []int) *Graph {
	if len(snap.Notes) != len(g.snap.Notes) {
		return New(snap)
	}
	u := &Graph{snap: snap, out: slices.Clone(g.out), in: slices.Clone(g.in), targets: slices.Clone(g.targets), attachIn: g.attachIn}
	isChanged := make(map[int]bool, len(changed))
	for _, c := range changed {
		isChanged[c] = true
	}
	touched, touchedAtt := map[int]bool{}, map[string]bool{}
	fresh := make(map[int]noteEdges, len(changed))
	for c := range isChanged {
		for _, e := range g.out[c] {
			touched[e.To] = true
		}
		for _, l := range g.snap.Notes[c].Links {
			if l.Kind == vault.LinkAttachment {
				touchedAtt[l.Resolved] = true
			}
		}
		ne := edgesOf(snap, c)
		fresh[c] = ne
		u.out[c], u.targets[c] = ne.out, ne.targets
		for _, e := range ne.out {
			touched[e.To] = true
		}
		for _, a := range ne.attach {
			touchedAtt[a.path] = true
		}
	}
	byOrder := func(a, b Edge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Link, b.Link)) }
	for t := range touched {
		in := slices.DeleteFunc(slices.Clone(g.in[t]), func(e Edge) bool { return isChanged[e.From] })
		for c, ne := range fresh {
			for _, e := range ne.out {
				if e.To == t && c == e.From {
					in = append(in, e)
				}
			}
		}
		slices.SortFunc(in, byOrder)
		u.in[t] = in
	}
	if len(touchedAtt) > 0 {
		u.attachIn = maps.Clone(g.attachIn)
		for p := range touchedAtt {
			in := slices.DeleteFunc(slices.Clone(g.attachIn[p]), func(e Edge) bool { return isChanged[e.From] })
			for _, ne := range fresh {
				for _, a := range ne.attach {
					if a.path == p {
						in = append(in, a.edge)
					}
				}
			}
			slices.SortFunc(in, byOrder)
			if len(in) == 0 {
				delete(u.attachIn, p)
			} else {
				u.attachIn[p] = in
			}
		}
	}
	u.unresolved = slices.DeleteFunc(slices.Clone(g.unresolved), func(x Unresolved) bool { return isChanged[x.From] })
	for _, ne := range fresh {
		u.unresolved = append(u.unresolved, ne.unresolved...)
	}
	slices.SortFunc(u.unresolved, func(a, b Unresolved) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Link, b.Link)) })
	return u
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

// OutDegree is the number of distinct notes a note links to.
func (g *Graph) OutDegree(note int) int { return len(g.targets[note]) }

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
