package rankers

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// SignalFeedback is the pseudo-relevance feedback signal: TF-IDF run again
// with the query expanded from the first fused hits (see TFIDF.Feedback).
const SignalFeedback = "feedback"

// feedbackTextBytes bounds how much of a feedback note's body is read, so
// that a huge note cannot make one query slow.
const feedbackTextBytes = 32 << 10

// Feedback is pseudo-relevance feedback in Rocchio's vector-space form
// (the TF-IDF counterpart of RM3): the notes fb (the first hits of the
// other signals, best first; FeedbackDocs of them are read) are taken as
// relevant, their unit tf-idf vectors are summed, and the FeedbackTerms
// heaviest terms join the query with FeedbackBeta of the query's weight
// (q' = q/|q| + β·c/|c|). The expanded query ranks like Rank. It finds
// notes that share the vocabulary of the first hits without sharing the
// query's words — the paraphrase a purely lexical signal misses.
func (t *TFIDF) Feedback(ctx context.Context, req Request, notes []*vault.Note, fb []int) ([]Candidate, error) {
	qids, qw := t.queryVector(req.Query)
	if len(qids) == 0 || req.Limit <= 0 || len(fb) == 0 {
		return nil, nil
	}
	sc := t.fbTerms.scratch()
	defer t.fbTerms.release(sc)
	a := t.a()
	cent := sc.cent
	for _, n := range fb[:min(len(fb), FeedbackDocs)] {
		if n < 0 || n >= len(notes) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t.addUnitVector(cent, notes[n], a, &sc.unit)
	}
	// The query vector's weights are tf·idf²/|q| (see queryVector): back in
	// tf·idf space they are qw/idf, a unit vector.
	w := sc.w
	for i, id := range qids {
		w[id] = float64(qw[i]) / t.idfOf(id, a)
	}
	sc.top = topTerms(cent, FeedbackTerms, sc.top)
	var cn float64
	for _, tw := range sc.top {
		cn += tw.w * tw.w
	}
	for _, tw := range sc.top {
		id, _ := t.dict.lookup(tw.term)
		w[id] += FeedbackBeta * tw.w / math.Sqrt(cn)
	}
	ids := sc.ids[:0]
	for id := range w {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	weights := slices.Grow(sc.weights[:0], len(ids))[:len(ids)]
	sc.ids, sc.weights = ids, weights
	var norm float64
	for i, id := range ids {
		norm += w[id] * w[id]
		weights[i] = float32(w[id] * t.idfOf(id, a))
	}
	for i := range weights {
		weights[i] /= float32(math.Sqrt(norm))
	}
	return t.rankVector(ctx, req, ids, weights)
}

// addUnitVector adds a note's unit tf-idf vector (title and body, sublinear
// tf) to sum, keyed by term. Terms are visited in sorted order, so the
// sums do not depend on map order or on term ids (which differ between an
// updated index and a fresh one).
func (t *TFIDF) addUnitVector(sum map[string]float64, n *vault.Note, a float64, sc *unitScratch) {
	nt := t.fbTerms.termsOf(t.an, n)
	terms, w := sc.terms[:0], sc.w[:0]
	defer func() { sc.terms, sc.w = terms, w }()
	for i, term := range nt.terms { // sorted
		if id, ok := t.dict.lookup(term); ok && t.live(id) {
			terms = append(terms, term)
			w = append(w, (1+math.Log(nt.counts[i]))*t.idfOf(id, a))
		}
	}
	var norm float64
	for _, x := range w {
		norm += x * x
	}
	if norm == 0 {
		return
	}
	for i, term := range terms {
		sum[term] += w[i] / math.Sqrt(norm)
	}
}

// unitScratch is addUnitVector's working memory, reused for the notes of
// one feedback query.
type unitScratch struct {
	terms []string
	w     []float64
}

// feedbackCentroidTerms sizes the feedback notes' term sums up front (a
// few hundred distinct terms each): the map is not grown step by step.
const feedbackCentroidTerms = 1024

type termWeight struct {
	term string
	w    float64
}

// compareTermWeights orders heaviest first, ties broken by term.
func compareTermWeights(x, y termWeight) int {
	if x.w != y.w {
		return cmp.Compare(y.w, x.w)
	}
	return cmp.Compare(x.term, y.term)
}

// topTerms returns the k heaviest terms of m in compareTermWeights order,
// in buf's memory. Terms are kept as they come, in order, at most k of
// them (most are lighter than the k-th and cost one comparison), instead
// of sorting all of m: the same k terms in the same order, since the
// order is total (no two entries have the same term).
func topTerms(m map[string]float64, k int, buf []termWeight) []termWeight {
	top := buf[:0]
	if k <= 0 {
		return top
	}
	for term, w := range m {
		tw := termWeight{term, w}
		if len(top) == k && compareTermWeights(tw, top[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, tw, compareTermWeights)
		if len(top) < k {
			top = append(top, termWeight{})
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = tw
	}
	return top
}
