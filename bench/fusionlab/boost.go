package main

import (
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// boost runs graph.BoostOver on the dumped links, with the boost's
// settings.
func boost(q *query, items []rankers.Fused) []rankers.Fused {
	return boostWith(q, items, boostDepth, boostStrength)
}

// boostDepth and boostStrength are the boost's settings; experiments
// change them.
var boostDepth, boostStrength = rankers.BoostDepth, float64(rankers.BoostStrength)

func boostWith(q *query, items []rankers.Fused, depth int, strength float64) []rankers.Fused {
	if strength == 0 {
		return items
	}
	return graph.BoostOver(dumpLinks{q}, items, graph.BoostOptions{Depth: depth, Strength: strength})
}

// dumpLinks are a query's dumped links, as the boost reads them.
type dumpLinks struct{ q *query }

func (d dumpLinks) Links(from, to int) bool {
	switch linkMode {
	case "anchor":
		return d.q.anchor[[2]int{from, to}]
	case "alias":
		return d.q.alias[[2]int{from, to}]
	}
	return d.q.links[from][to]
}

// linkMode gates the links the boost counts: "" all, "anchor" those whose
// link text shares a query term, "alias" those whose display text does.
var linkMode = ""

func (d dumpLinks) OutDegree(from int) int { return d.q.OutDegree[from] }
