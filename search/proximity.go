package search

import (
	"context"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Term proximity (rankers.Proximity) enters a search as its own RRF
// signal ("proximity", weight from the weights map, 0 by default): the
// lexical signals' first rankers.ProximityPool fused notes, whose text
// is read at query time, re-ranked by their MinDist (proximityList). It
// says nothing about a query of fewer than two distinct terms.

// proximityList returns the proximity signal's list, or false when it
// does not apply: the request names signals without "proximity", its
// weight is 0, the query has fewer than two distinct terms, or no
// lexical signal ran. Its candidates are the notes of the lexical fused
// top rankers.ProximityPool in which two distinct query terms occur
// within rankers.ProximityMaxDist positions, closest first (fused order
// among equals), each scored with its rankers.ProximityBonus.
func (e *Engine) proximityList(ctx context.Context, req Request, lists []rankers.Ranked, weights map[string]float64) (rankers.Ranked, bool) {
	l := rankers.Ranked{Signal: rankers.SignalProximity}
	if req.Signals != nil && !slices.Contains(req.Signals, rankers.SignalProximity) || weights[rankers.SignalProximity] == 0 ||
		req.Granularity == GranularityBlock || !hasLexical(lists) {
		return l, false
	}
	p := rankers.NewProximity(e.an, req.Query)
	if p == nil {
		return l, false
	}
	notes := rankers.FusedNotes(lists, e.opts.RRFK, weights, rankers.ProximityPool)
	type near struct{ note, dist int }
	var found []near
	for _, n := range notes {
		if ctx.Err() != nil {
			return l, false
		}
		note := e.readable(e.snap.Notes[n])
		if d := p.MinDist(note.Title, headOf(note.Body)); d != rankers.NoDist && d <= rankers.ProximityMaxDist {
			found = append(found, near{n, d})
		}
	}
	if len(found) == 0 {
		return l, false
	}
	slices.SortStableFunc(found, func(a, b near) int { return a.dist - b.dist })
	l.Candidates = make([]rankers.Candidate, len(found))
	for i, f := range found {
		l.Candidates[i] = rankers.Candidate{Note: f.note, Chunk: rankers.NoChunk, Score: rankers.ProximityBonus(f.dist)}
	}
	return l, true
}

// hasLexical reports whether BM25 or TF-IDF listed anything.
func hasLexical(lists []rankers.Ranked) bool {
	return slices.ContainsFunc(lists, func(r rankers.Ranked) bool {
		return (r.Signal == rankers.SignalBM25 || r.Signal == rankers.SignalTFIDF) && len(r.Candidates) > 0
	})
}

// headOf is the part of a note's body proximity reads: its first
// rankers.ProximityMaxBytes (a word cut there is read as cut).
func headOf(body string) string {
	return body[:min(len(body), rankers.ProximityMaxBytes)]
}
