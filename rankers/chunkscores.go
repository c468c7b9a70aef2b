package rankers

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// ChunkScores returns the TF-IDF cosine of each chunk of a note against
// the query (index = chunk index; 0 for a chunk sharing no term with it),
// or nil for an unknown note. BestChunk is its arg-max.
func (t *TFIDF) ChunkScores(query string, note int) []float32 {
	if note < 0 || note >= t.numNotes {
		return nil
	}
	nd := t.noteDocs[t.slotOf[note]]
	lo, hi := uint32(nd.first), uint32(nd.first+nd.count)
	scores := make([]float32, hi-lo)
	if lo == hi {
		return scores
	}
	ids, weights := t.queryVector(query)
	var buf []posting
	for i, id := range ids {
		for _, p := range t.between(t.chunks.get(id), lo, hi, &buf) {
			scores[p.doc-lo] += p.tf * weights[i]
		}
	}
	for c := range scores {
		scores[c] *= t.chunkInv[lo+uint32(c)]
	}
	return scores
}

// QueryVector embeds a query with the signal's model; nil when the model
// knows none of its words.
func (e *Embeddings) QueryVector(ctx context.Context, query string) ([]float32, error) {
	qv, err := e.model.Embed(ctx, []string{query}, embed.Query)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(qv) != 1 || len(qv[0]) != e.dim {
		return nil, fmt.Errorf("embed query: %w", embed.ErrDimension)
	}
	if zero(qv[0]) {
		return nil, nil
	}
	return qv[0], nil
}

// ChunkCosines returns the cosine of each stored chunk vector of a note
// with q (a QueryVector): chunk index → cosine. Chunks without a vector
// are absent.
func (e *Embeddings) ChunkCosines(q []float32, note int) map[int]float32 {
	e.rowsOnce.Do(e.indexRows)
	if q == nil || note < 0 || note >= len(e.rowsOf) {
		return nil
	}
	out := make(map[int]float32, len(e.rowsOf[note]))
	for _, r := range e.rowsOf[note] {
		out[int(e.chunks[r])] = e.dotRow(q, int(r))
	}
	return out
}

// indexRows builds the note → rows lookup of ChunkCosines.
func (e *Embeddings) indexRows() {
	e.rowsOf = make([][]int32, e.nNotes)
	for r, n := range e.notes {
		e.rowsOf[n] = append(e.rowsOf[n], int32(r))
	}
}

// rankWithin is Rank under the prefilter: only the rows of the notes in
// req.Within are scored (found through the note → rows lookup), so the
// cost follows the candidates, not the table. The result is the full
// ranking restricted to those notes.
func (e *Embeddings) rankWithin(q []float32, req Request) []Candidate {
	e.rowsOnce.Do(e.indexRows)
	var cands []Candidate
	for n, ok := range req.Within {
		if !ok || n >= len(e.rowsOf) || req.Allow != nil && !req.Allow(n) {
			continue
		}
		var best float32
		found := false
		for _, r := range e.rowsOf[n] {
			s := e.dotRow(q, int(r))
			switch {
			case dropped(s, req):
			case req.Block:
				cands = append(cands, Candidate{Note: n, Chunk: int(e.chunks[r]), Score: float64(s)})
			case !found || s > best:
				best, found = s, true
			}
		}
		if found {
			cands = append(cands, Candidate{Note: n, Chunk: NoChunk, Score: float64(best)})
		}
	}
	return TopK(cands, req.Limit)
}
