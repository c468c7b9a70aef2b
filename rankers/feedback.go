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
	a := t.a()
	cent := make(map[string]float64, feedbackCentroidTerms)
	var sc unitScratch
	for _, n := range fb[:min(len(fb), FeedbackDocs)] {
		if n < 0 || n >= len(notes) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t.addUnitVector(cent, notes[n], a, &sc)
	}
	// The query vector's weights are tf·idf²/|q| (see queryVector): back in
	// tf·idf space they are qw/idf, a unit vector.
	w := map[uint32]float64{}
	for i, id := range qids {
		w[id] = float64(qw[i]) / t.idfOf(id, a)
	}
	terms := topTerms(cent, FeedbackTerms)
	var cn float64
	for _, tw := range terms {
		cn += tw.w * tw.w
	}
	for _, tw := range terms {
		id, _ := t.dict.lookup(tw.term)
		w[id] += FeedbackBeta * tw.w / math.Sqrt(cn)
	}
	ids := make([]uint32, 0, len(w))
	for id := range w {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	weights := make([]float32, len(ids))
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

// topTerms returns the k heaviest terms, ties broken by term.
func topTerms(m map[string]float64, k int) []termWeight {
	out := make([]termWeight, 0, len(m))
	for id, w := range m {
		out = append(out, termWeight{id, w})
	}
	slices.SortFunc(out, func(x, y termWeight) int {
		if x.w != y.w {
			return cmp.Compare(y.w, x.w)
		}
		return cmp.Compare(x.term, y.term)
	})
	return out[:min(k, len(out))]
}
