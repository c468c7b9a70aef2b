package graph

import (
	"slices"
	"sync"
)

// Defaults and bounds of a shortest-path search.
const (
	// DefaultMaxDepth is the most hops a path may have when none is given.
	DefaultMaxDepth = 5
	// MaxDepthLimit is the deepest search allowed (depths are stored in a
	// byte).
	MaxDepthLimit = 64
	// DefaultMaxVisited caps the notes one search may visit, so a huge
	// vault cannot make a single call slow.
	DefaultMaxVisited = 1 << 20
)

// PathOptions shape a shortest-path search.
type PathOptions struct {
	// MaxDepth is the most hops a path may have (≤0: DefaultMaxDepth;
	// capped at MaxDepthLimit).
	MaxDepth int
	// Undirected follows links both ways (A→B also lets a path go from B
	// to A).
	Undirected bool
	// FollowEmbeds lets a path go through a link that is only an embed
	// (![[…]]); false uses plain links only.
	FollowEmbeds bool
	// MaxPaths is how many distinct shortest paths to return (≤0: 1).
	MaxPaths int
	// MaxVisited caps the notes the search may visit (≤0:
	// DefaultMaxVisited).
	MaxVisited int
}

// PathResult is the outcome of a shortest-path search.
type PathResult struct {
	// Paths are note ids from the start to the goal, each Hops+1 long,
	// all of the same (shortest) length; empty when there is none.
	Paths [][]int
	// Hops is the length of the shortest path, -1 when none was found.
	Hops int
	// Visited counts the notes the search reached.
	Visited int
	// Truncated is set when MaxVisited stopped the search: a longer
	// search might have found a path.
	Truncated bool
}

// direction of an adjacency list.
type direction int

const (
	dirOut  direction = iota // links as written
	dirIn                    // links reversed
	dirBoth                  // either way
	dirCount
)

// csr is a compressed adjacency list: the neighbours of node u are
// to[start[u]:start[u+1]], distinct and ascending.
type csr struct {
	start []int32
	to    []int32
}

func (c *csr) neighbours(u int) []int32 { return c.to[c.start[u]:c.start[u+1]] }

// PathFinder answers shortest-path questions over one graph. Its
// adjacency lists (directed, reversed, undirected; with and without
// embeds) are derived from the graph once, on first use, and scratch
// space is pooled, so a search allocates only its answer. It is safe for
// concurrent use.
type PathFinder struct {
	g    *Graph
	once [dirCount * 2]sync.Once
	adj  [dirCount * 2]csr
	pool sync.Pool // *bfsScratch
}

// NewPathFinder returns a path finder over g. It is cheap: the adjacency
// lists are built lazily.
func NewPathFinder(g *Graph) *PathFinder {
	p := &PathFinder{g: g}
	p.pool.New = func() any { return newScratch(len(g.snap.Notes)) }
	return p
}

// adjacency returns the (lazily built) adjacency of one direction, with
// or without embed-only links.
func (p *PathFinder) adjacency(d direction, embeds bool) *csr {
	i := int(d) * 2
	if embeds {
		i++
	}
	p.once[i].Do(func() { p.adj[i] = p.g.buildCSR(d, embeds) })
	return &p.adj[i]
}

// isEmbedEdge reports whether an edge's link is an embed.
func (g *Graph) isEmbedEdge(e Edge) bool { return g.snap.Notes[e.From].Links[e.Link].Embed }

// buildCSR derives one adjacency list from the edges.
func (g *Graph) buildCSR(d direction, embeds bool) csr {
	n := len(g.snap.Notes)
	c := csr{start: make([]int32, n+1)}
	var buf []int32
	for u := range n {
		buf = buf[:0]
		if d != dirIn {
			for _, e := range g.out[u] {
				if embeds || !g.isEmbedEdge(e) {
					buf = append(buf, int32(e.To))
				}
			}
		}
		if d != dirOut {
			for _, e := range g.in[u] {
				if embeds || !g.isEmbedEdge(e) {
					buf = append(buf, int32(e.From))
				}
			}
		}
		slices.Sort(buf)
		buf = slices.Compact(buf)
		c.to = append(c.to, buf...)
		c.start[u+1] = int32(len(c.to))
	}
	c.to = slices.Clip(c.to)
	return c
}

// bfsScratch is the per-search state, reused through a pool: a node is
// visited in this search when stamp[node] == gen, so nothing is cleared
// between searches.
type bfsScratch struct {
	gen   uint32
	stamp []uint32
	dist  []uint8
	queue []int32
	stack []int32
}

func newScratch(n int) *bfsScratch {
	return &bfsScratch{stamp: make([]uint32, n), dist: make([]uint8, n), queue: make([]int32, 0, 64)}
}

// next starts a new search generation.
func (s *bfsScratch) next() {
	s.gen++
	if s.gen == 0 { // wrapped: old stamps could collide
		clear(s.stamp)
		s.gen = 1
	}
	s.queue = s.queue[:0]
	s.stack = s.stack[:0]
}

func (s *bfsScratch) seen(u int32) bool { return s.stamp[u] == s.gen }

func (s *bfsScratch) visit(u int32, d uint8) {
	s.stamp[u] = s.gen
	s.dist[u] = d
	s.queue = append(s.queue, u)
}

// ShortestPaths finds up to opt.MaxPaths shortest paths from one note to
// another by breadth-first search. Paths are listed in a deterministic
// order (by the ids, i.e. paths, of the notes nearest the goal first).
// Ids out of range find nothing.
func (p *PathFinder) ShortestPaths(from, to int, opt PathOptions) PathResult {
	n := len(p.g.snap.Notes)
	if from < 0 || to < 0 || from >= n || to >= n {
		return PathResult{Paths: [][]int{}, Hops: -1}
	}
	if from == to {
		return PathResult{Paths: [][]int{{from}}, Hops: 0, Visited: 1}
	}
	opt = opt.withDefaults()
	fwd, back := dirOut, dirIn
	if opt.Undirected {
		fwd, back = dirBoth, dirBoth
	}
	s := p.pool.Get().(*bfsScratch)
	defer p.pool.Put(s)
	s.next()
	found, truncated := p.bfs(s, p.adjacency(fwd, opt.FollowEmbeds), int32(from), int32(to), opt)
	res := PathResult{Paths: [][]int{}, Hops: -1, Visited: len(s.queue), Truncated: truncated}
	if !found {
		return res
	}
	res.Hops = int(s.dist[to])
	res.Paths = p.enumerate(s, p.adjacency(back, opt.FollowEmbeds), int32(from), int32(to), opt.MaxPaths)
	return res
}

func (o PathOptions) withDefaults() PathOptions {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	o.MaxDepth = min(o.MaxDepth, MaxDepthLimit)
	if o.MaxPaths <= 0 {
		o.MaxPaths = 1
	}
	if o.MaxVisited <= 0 {
		o.MaxVisited = DefaultMaxVisited
	}
	return o
}

// bfs explores level by level until it reaches to, runs out of depth or
// hits the visit cap. When to is found every node nearer the start has
// its final distance (levels are completed in queue order), which is all
// enumerate needs.
func (p *PathFinder) bfs(s *bfsScratch, adj *csr, from, to int32, opt PathOptions) (found, truncated bool) {
	s.visit(from, 0)
	for head := 0; head < len(s.queue); head++ {
		u := s.queue[head]
		d := s.dist[u]
		if int(d) >= opt.MaxDepth {
			return false, false // the queue is ordered by depth: nothing shallower is left
		}
		for _, v := range adj.neighbours(int(u)) {
			if s.seen(v) {
				continue
			}
			s.visit(v, d+1)
			if v == to {
				return true, false
			}
			if len(s.queue) >= opt.MaxVisited {
				return false, true
			}
		}
	}
	return false, false
}

// enumerate walks back from to through predecessors one level nearer the
// start (depth-first, ascending ids), collecting up to max paths. Every
// node at depth k>0 has a predecessor at depth k-1, so no branch is a
// dead end and the walk costs O(max × hops × degree).
func (p *PathFinder) enumerate(s *bfsScratch, back *csr, from, to int32, max int) [][]int {
	var out [][]int
	s.stack = append(s.stack[:0], to)
	var walk func(cur int32) bool
	walk = func(cur int32) bool {
		if cur == from {
			path := make([]int, len(s.stack))
			for i, v := range s.stack {
				path[len(s.stack)-1-i] = int(v)
			}
			out = append(out, path)
			return len(out) >= max
		}
		want := s.dist[cur] - 1
		for _, v := range back.neighbours(int(cur)) {
			if !s.seen(v) || s.dist[v] != want {
				continue
			}
			s.stack = append(s.stack, v)
			done := walk(v)
			s.stack = s.stack[:len(s.stack)-1]
			if done {
				return true
			}
		}
		return false
	}
	walk(to)
	return out
}

// LinkBetween returns the link a path step from note a to note b uses:
// the first link (in document order) from a to b, skipping embeds unless
// followEmbeds; when undirected and a does not link to b, the first link
// from b to a, with backward set. ok is false when no such link exists.
func (g *Graph) LinkBetween(a, b int, undirected, followEmbeds bool) (e Edge, backward, ok bool) {
	if e, ok := g.firstLink(a, b, followEmbeds); ok {
		return e, false, true
	}
	if undirected {
		if e, ok := g.firstLink(b, a, followEmbeds); ok {
			return e, true, true
		}
	}
	return Edge{}, false, false
}

func (g *Graph) firstLink(a, b int, followEmbeds bool) (Edge, bool) {
	if a < 0 || a >= len(g.out) {
		return Edge{}, false
	}
	for _, e := range g.out[a] {
		if e.To == b && (followEmbeds || !g.isEmbedEdge(e)) {
			return e, true
		}
	}
	return Edge{}, false
}
