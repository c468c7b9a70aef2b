package graph

import (
	"slices"
	"strings"
	"sync"
)

// MissingTargets groups a graph's unresolved links by target, compared
// case-insensitively as resolution compares them. It is built on first
// use and immutable afterwards; safe for concurrent use.
type MissingTargets struct {
	g    *Graph
	once sync.Once
	// links are g.Unresolved() with their target ids; keys[id] is the
	// target's first spelling seen, rank[id] its alphabetical rank
	// (case-insensitive).
	links []MissingLink
	keys  []string
	rank  []int
}

// MissingLink is an unresolved link and the id of its target.
type MissingLink struct {
	Unresolved
	Target int
}

// TargetCount is a missing target and how many links point to it.
type TargetCount struct {
	Target string
	Count  int
}

// NewMissingTargets returns the missing targets of g, built on first use.
func NewMissingTargets(g *Graph) *MissingTargets { return &MissingTargets{g: g} }

func (m *MissingTargets) build() {
	m.once.Do(func() {
		ids := map[string]int{}
		var lower []string
		for _, u := range m.g.Unresolved() {
			t := m.g.UnresolvedTarget(u)
			key := strings.ToLower(t)
			id, ok := ids[key]
			if !ok {
				id = len(m.keys)
				ids[key] = id
				m.keys = append(m.keys, t)
				lower = append(lower, key)
			}
			m.links = append(m.links, MissingLink{Unresolved: u, Target: id})
		}
		order := make([]int, len(lower))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(lower[a], lower[b]) })
		m.rank = make([]int, len(order))
		for rank, id := range order {
			m.rank[id] = rank
		}
	})
}

// Links returns every unresolved link with its target's id, in the
// graph's order (see Graph.Unresolved). The slice is shared: do not
// modify it.
func (m *MissingTargets) Links() []MissingLink {
	m.build()
	return m.links
}

// Top counts the links per target: the most linked first, then
// alphabetically (case-insensitive), at most limit of them; total is the
// number of distinct targets. links is Links or a subset of it.
func (m *MissingTargets) Top(links []MissingLink, limit int) (top []TargetCount, total int) {
	m.build()
	counts := make([]int, len(m.keys))
	var ids []int
	for _, u := range links {
		if counts[u.Target] == 0 {
			ids = append(ids, u.Target)
		}
		counts[u.Target]++
	}
	slices.SortFunc(ids, func(a, b int) int {
		if c := counts[b] - counts[a]; c != 0 {
			return c
		}
		return m.rank[a] - m.rank[b]
	})
	top = make([]TargetCount, 0, min(len(ids), limit))
	for _, id := range ids[:min(len(ids), limit)] {
		top = append(top, TargetCount{Target: m.keys[id], Count: counts[id]})
	}
	return top, len(ids)
}
