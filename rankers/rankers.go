// Package rankers holds the retrieval signals (TF-IDF, and the plug-in
// points for BM25 and embeddings) and Reciprocal Rank Fusion. A ranker only
// ranks: filters arrive as an Allow predicate so that they apply before any
// list is cut, and fusion keeps every signal's rank and score per hit.
package rankers

import (
	"cmp"
	"context"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// Signal names, as reported in per_signal and signals_used.
const (
	SignalBM25       = "bm25"
	SignalTFIDF      = "tfidf"
	SignalEmbeddings = "embeddings"
)

// Candidate is one ranked item: a note, or a chunk of a note when Chunk is
// not NoChunk.
type Candidate struct {
	Note  int
	Chunk int
	Score float64
}

// NoChunk marks a note-level candidate.
const NoChunk = -1

// Request is what a ranker needs to know of a search.
type Request struct {
	Query string
	// Limit is how many candidates to return at most.
	Limit int
	// Allow, when set, admits only the notes for which it returns true.
	Allow func(note int) bool
	// Block asks for chunk-level candidates.
	Block bool
	// EmbeddingModel names the embedding model the caller expects (used by
	// the embeddings signal only).
	EmbeddingModel string
	// MinSimilarity, above 0, drops dense candidates whose cosine is below
	// it (used by the embeddings signal only).
	MinSimilarity float64
	// Within, when not nil, is the prefilter of the dense signal: only
	// chunks of notes marked true are scored (indexed by note id; used by
	// the embeddings signal only).
	Within []bool
	// BM25 are BM25's k1 and b (used by the BM25 signal only); the zero
	// value means BM25K1 and BM25B.
	BM25 index.BM25Params
}

// Ranker is one retrieval signal.
type Ranker interface {
	// Name is the signal name ("tfidf", "bm25", "embeddings").
	Name() string
	// Rank returns candidates, best first.
	Rank(ctx context.Context, req Request) ([]Candidate, error)
}

// compareCandidates orders by score (higher first), then note and chunk id
// so that equal scores always come out in the same order.
func compareCandidates(a, b Candidate) int {
	if a.Score != b.Score {
		return cmp.Compare(b.Score, a.Score)
	}
	if a.Note != b.Note {
		return cmp.Compare(a.Note, b.Note)
	}
	return cmp.Compare(a.Chunk, b.Chunk)
}

// TopK keeps the k best candidates of cands (in place) and sorts them.
func TopK(cands []Candidate, k int) []Candidate {
	if k <= 0 {
		return nil
	}
	if len(cands) > 4*k {
		// A bounded heap: O(n log k) instead of sorting everything.
		t := newBoundedTop(k, k)
		for _, c := range cands {
			t.offer(c)
		}
		return t.sorted()
	}
	slices.SortFunc(cands, compareCandidates)
	return cands[:min(k, len(cands))]
}

// boundedTop keeps the k best candidates offered (a bounded heap with the worst
// kept one at the root), for callers that produce candidates one by one
// and should not gather them all first.
type boundedTop struct {
	h []Candidate
	k int
}

// newBoundedTop keeps the k best of about n candidates.
func newBoundedTop(k, n int) *boundedTop {
	return &boundedTop{h: make([]Candidate, 0, min(k, n)), k: k}
}

// offer considers c.
func (b *boundedTop) offer(c Candidate) {
	switch {
	case len(b.h) < b.k:
		if b.h = append(b.h, c); len(b.h) == b.k {
			heapify(b.h)
		}
	case compareCandidates(c, b.h[0]) < 0:
		b.h[0] = c
		siftDown(b.h, 0)
	}
}

// sorted returns the kept candidates, best first.
func (b *boundedTop) sorted() []Candidate {
	slices.SortFunc(b.h, compareCandidates)
	return b.h
}

// The heap keeps the worst kept candidate at the root.
func heapify(h []Candidate) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
}

func siftDown(h []Candidate, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && compareCandidates(h[l], h[worst]) > 0 {
			worst = l
		}
		if r < len(h) && compareCandidates(h[r], h[worst]) > 0 {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
