package search

import (
	"context"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// feedback runs pseudo-relevance feedback (rankers.TFIDF.Feedback) on the
// first pass's fused notes (lists fused, rankers.FusedNotes) and returns its list, or false when it does not
// apply: the request names signals without "feedback", its weight is 0, or
// no lexical signal ran (feedback expands what the words found; the
// embeddings alone are not trusted to pick the feedback notes).
func (e *Engine) feedback(ctx context.Context, req Request, allow func(int) bool, lists []rankers.Ranked, weights map[string]float64) (rankers.Ranked, bool) {
	l := rankers.Ranked{Signal: rankers.SignalFeedback}
	if req.Signals != nil && !slices.Contains(req.Signals, rankers.SignalFeedback) || weights[rankers.SignalFeedback] == 0 {
		return l, false
	}
	if !hasLexical(lists) {
		return l, false
	}
	notes := rankers.FusedNotes(lists, e.opts.RRFK, weights, rankers.FeedbackDocs)
	// Feedback reads the notes' text: handed over readable (statetext.go),
	// numbered as they come.
	read, ids := make([]*vault.Note, len(notes)), make([]int, len(notes))
	for k, n := range notes {
		read[k], ids[k] = e.readable(e.snap.Notes[n]), k
	}
	cands, err := e.tfidf.Feedback(ctx, rankers.Request{Query: req.Query, Limit: e.depth(req), Allow: allow,
		Block: req.Granularity == GranularityBlock}, read, ids)
	if err != nil || len(cands) == 0 {
		return l, false
	}
	l.Candidates = cands
	return l, true
}

// independent counts the signals that found f for min_signals: feedback
// re-runs TF-IDF from the others' hits and proximity re-ranks them, so
// neither is an independent witness.
func independent(f rankers.Fused) int {
	n := len(f.Signals)
	for _, s := range []string{rankers.SignalFeedback, rankers.SignalProximity} {
		if _, ok := f.Signals[s]; ok {
			n--
		}
	}
	return n
}
