package search

import (
	"cmp"
	"context"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Term proximity (rankers.Proximity) enters a search in one of two ways,
// both over a bounded pool of candidates whose text is read at query
// time, and neither for a query of fewer than two distinct terms:
//   - as its own RRF signal ("proximity", weight from the weights map):
//     the lexical signals' first rankers.ProximityPool fused notes,
//     re-ranked by their MinDist (proximityList);
//   - inside BM25's score (Options.BM25Proximity): BM25's first
//     ProximityPool candidates gain rankers.ProximityBonus of their
//     MinDist and are re-sorted (proximityBM25).

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

// proximityBM25 adds to each of BM25's first rankers.ProximityPool
// candidates the rankers.ProximityBonus of its MinDist (over the note's
// title and body, or a block's title and chunk) and re-sorts them, when
// Options.BM25Proximity is on and the query has two or more distinct
// terms. Bonuses are ≥ 0, so every re-scored candidate stays above the
// ones past the pool. It changes the BM25 list in place.
func (e *Engine) proximityBM25(ctx context.Context, req Request, lists []rankers.Ranked) {
	if !e.opts.BM25Proximity {
		return
	}
	i := slices.IndexFunc(lists, func(r rankers.Ranked) bool { return r.Signal == rankers.SignalBM25 })
	if i < 0 || len(lists[i].Candidates) == 0 {
		return
	}
	p := rankers.NewProximity(e.an, req.Query)
	if p == nil {
		return
	}
	cands := slices.Clone(lists[i].Candidates)
	top := cands[:min(len(cands), rankers.ProximityPool)]
	for k := range top {
		if ctx.Err() != nil {
			return
		}
		top[k].Score += rankers.ProximityBonus(e.candidateDist(p, top[k]))
	}
	slices.SortStableFunc(top, func(a, b rankers.Candidate) int { return cmp.Compare(b.Score, a.Score) })
	lists[i].Candidates = cands
}

// candidateDist is the MinDist of a candidate's text: its note's title
// and body (headOf), or its block's.
func (e *Engine) candidateDist(p *rankers.Proximity, c rankers.Candidate) int {
	note := e.readable(e.snap.Notes[c.Note])
	if c.Chunk != rankers.NoChunk {
		return p.MinDist(note.Title, e.chunks[c.Note][c.Chunk].Text(note))
	}
	return p.MinDist(note.Title, headOf(note.Body))
}

// headOf is the part of a note's body proximity reads: its first
// rankers.ProximityMaxBytes (a word cut there is read as cut).
func headOf(body string) string {
	return body[:min(len(body), rankers.ProximityMaxBytes)]
}

// BM25Proximity reports whether BM25's scores carry the term-proximity
// bonus (Options.BM25Proximity).
func (e *Engine) BM25Proximity() bool { return e.opts.BM25Proximity }
