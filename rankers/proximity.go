package rankers

import (
	"math"

	"github.com/enquire-mcp/enquire-mcp/analysis"
)

// SignalProximity names the term-proximity signal: the lexical signals'
// first notes re-ranked by how close together the query's terms occur
// in them (search.Engine runs it; see Proximity).
const SignalProximity = "proximity"

// NoDist is the distance of a text in which no two distinct query terms
// occur in the same field.
const NoDist = -1

// Proximity measures how close together the distinct terms of one query
// occur in a text: the MinDist of Tao & Zhai (2007), the fewest term
// positions between an occurrence of one query term and an occurrence
// of another. Terms are the analyzer's, in query mode for the text too
// (stop words drop out without leaving a gap; a CJK run is a sequence of
// overlapping character bigrams, so a query phrase found verbatim has
// its grams one position apart). A Proximity serves one search: it
// remembers the terms of the words it has read (analysis.TermCache), so
// it is not safe for concurrent use.
type Proximity struct {
	words *analysis.TermCache
	terms map[string]int // distinct query term → its index
}

// NewProximity analyses query. It returns nil when the query has fewer
// than two distinct terms: proximity says nothing about them, and a
// single-term search must rank as without it.
func NewProximity(an *analysis.Analyzer, query string) *Proximity {
	terms := map[string]int{}
	an.Each(query, analysis.Query, func(t string, _, _ int) {
		if _, ok := terms[t]; !ok {
			terms[t] = len(terms)
		}
	})
	if len(terms) < 2 {
		return nil
	}
	return &Proximity{words: an.NewTermCache(), terms: terms}
}

// MinDist returns the smallest distance, in term positions, between
// occurrences of two distinct query terms within one of fields (a note's
// title and body are two fields: a title word next to the body's first
// word is no proximity), or NoDist when no field holds two of them.
// Adjacent terms are 1 apart.
func (p *Proximity) MinDist(fields ...string) int {
	best := NoDist
	last := make([]int, len(p.terms))
	for _, text := range fields {
		for i := range last {
			last[i] = -1
		}
		pos := 0
		p.words.Each(text, analysis.Query, func(t string, _, _ int) {
			if k, ok := p.terms[t]; ok {
				for j, at := range last {
					if j != k && at >= 0 && (best == NoDist || pos-at < best) {
						best = pos - at
					}
				}
				last[k] = pos
			}
			pos++
		})
		if best == 1 {
			break // nothing is closer
		}
	}
	return best
}

// ProximityBonus is the score Tao & Zhai's π = log(α + exp(−δ)) adds for
// a distance δ, shifted so that a text without two query terms together
// gains nothing: log(1 + exp(−δ)/α) with α = ProximityAlpha; 0 for
// NoDist. It falls fast: 0.80 at δ 1, 0.37 at 2, 0.15 at 3, 0.02 at 5.
func ProximityBonus(d int) float64 {
	if d == NoDist {
		return 0
	}
	return math.Log1p(math.Exp(-float64(d)) / ProximityAlpha)
}
