package search

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// Reranker re-scores passages for a query: a cross-encoder
// (embed/onnx.Scorer). Higher scores are more relevant.
type Reranker interface {
	Name() string
	Score(ctx context.Context, query string, passages []string) ([]float32, error)
}

// wantRerank says whether a request is reranked: as it asks, else
// whenever the engine has a reranker.
func (e *Engine) wantRerank(req Request) bool {
	if req.Rerank != nil {
		return *req.Rerank
	}
	return e.opts.Reranker != nil
}

// rerank re-orders the first RerankTopN fused hits by the reranker's
// score of (query, passage) and records each one's rerank rank and score
// in its signals; hits below keep their fused order after them. The
// passage is the hit's chunk text, or for a note hit its best chunk by
// TF-IDF (the whole body if it has none), after the note's title. A
// failing reranker leaves the fused order and reports why.
func (e *Engine) rerank(ctx context.Context, req Request, fused []rankers.Fused, res *Result) []rankers.Fused {
	if e.opts.Reranker == nil {
		res.addSignalError(rankers.SignalRerank, "no reranker: start the server with --rerank MODEL (install one with `enquire-mcp install-model ms-marco-MiniLM-L-6-v2`; the ort build only)")
		return fused
	}
	n := e.opts.RerankTopN
	if n <= 0 {
		n = rankers.DefaultRerankTopN
	}
	top := fused[:min(n, len(fused))]
	if len(top) == 0 {
		return fused
	}
	passages := make([]string, len(top))
	for i, f := range top {
		passages[i] = e.rerankText(req.Query, f)
	}
	scores, err := e.opts.Reranker.Score(ctx, req.Query, passages)
	if err == nil && len(scores) != len(top) {
		err = errRerankCount
	}
	if err != nil {
		res.addSignalError(rankers.SignalRerank, err.Error())
		return fused
	}
	order := make([]int, len(top))
	for i := range order {
		order[i] = i
	}
	// Stable: equal scores keep the fused order.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	out := make([]rankers.Fused, 0, len(fused))
	for rank, i := range order {
		f := top[i]
		f.Signals = maps.Clone(f.Signals)
		if f.Signals == nil {
			f.Signals = map[string]rankers.SignalHit{}
		}
		f.Signals[rankers.SignalRerank] = rankers.SignalHit{Rank: rank + 1, Score: float64(scores[i])}
		out = append(out, f)
	}
	res.SignalsUsed = append(res.SignalsUsed, rankers.SignalRerank)
	return append(out, fused[len(top):]...)
}

// rerankText is the text the reranker reads for a fused hit.
func (e *Engine) rerankText(query string, f rankers.Fused) string {
	n := e.snap.Notes[f.Note]
	c := f.Chunk
	if c == rankers.NoChunk {
		c = e.tfidf.BestChunk(query, f.Note)
	}
	body := n.Body
	if c != rankers.NoChunk {
		ch := e.chunks[f.Note][c]
		body = n.Body[ch.Start:ch.End]
	}
	body = e.state.Copy(body) // not through the mapping: see readable
	if n.Title == "" {
		return body
	}
	return n.Title + "\n" + body
}

// errRerankCount is a reranker answering with the wrong number of scores.
var errRerankCount = errors.New("the reranker returned a wrong number of scores")
