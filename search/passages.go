package search

import (
	"context"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Passage is one addressable chunk of a note.
type Passage struct {
	// ChunkID names the chunk (see ChunkID); Index is its position.
	ChunkID string
	Index   int
	Text    string
	// Score ranks the passages of one hit (see passageScores); 0 in a
	// context listing.
	Score float64
	// LineStart and LineEnd are 1-based file lines, inclusive.
	LineStart, LineEnd int
	// CharStart and CharEnd are byte offsets into the file as UTF-8:
	// file[CharStart:CharEnd] is Text, with the file's CRLF line ends
	// (Text has LF). For a PDF they index the extracted text.
	CharStart, CharEnd int
	// Page is the PDF page (0 for markdown).
	Page int
}

// addPassages fills each hit's Passages with its note's best chunks.
func (e *Engine) addPassages(ctx context.Context, req Request, res *Result) {
	if req.MaxPassages == nil {
		return
	}
	dense := e.passageDense(ctx, req, res)
	for i := range res.Hits {
		h := &res.Hits[i]
		n := e.readable(e.snap.Notes[h.Note])
		best := e.bestChunks(req, h.Note, dense, *req.MaxPassages)
		file := e.readFileText(ctx, n)
		h.Passages = make([]Passage, len(best))
		for k, b := range best {
			h.Passages[k] = e.passage(n, file, e.chunks[h.Note][b.index], b.score)
		}
	}
}

// passage renders chunk c of note n.
func (e *Engine) passage(n *vault.Note, file *fileText, c chunk.Chunk, score float64) Passage {
	p := Passage{ChunkID: ChunkID(n, c), Index: c.Index, Text: c.Text(n), Score: score,
		LineStart: c.LineStart, LineEnd: c.LineEnd,
		CharStart: file.offset(n, c.Start), CharEnd: file.offset(n, c.End), Page: c.Page}
	if n.Kind == vault.KindPDF {
		p.LineStart, p.LineEnd = 0, 0
	}
	return p
}

// densePassages is the query vector of the dense signal when it took part
// in the search with a positive weight (nil otherwise).
type densePassages struct {
	emb    *rankers.Embeddings
	q      []float32
	weight float64
}

func (e *Engine) passageDense(ctx context.Context, req Request, res *Result) *densePassages {
	emb := e.dense()
	w := e.Weights()[rankers.SignalEmbeddings]
	if v, ok := req.Weights[rankers.SignalEmbeddings]; ok {
		w = v
	}
	if emb == nil || w <= 0 || !slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) {
		return nil
	}
	q, err := emb.QueryVector(ctx, req.Query)
	if err != nil || q == nil {
		return nil
	}
	return &densePassages{emb: emb, q: q, weight: w}
}

type scoredChunk struct {
	index int
	score float64
}

// bestChunks ranks a note's chunks by Reciprocal Rank Fusion of their
// TF-IDF cosine and (when the dense signal took part) their embedding
// cosine, as the hits themselves are fused; a chunk neither signal scores
// is left out, and a note with no scored chunk gives its first chunk
// (score 0), so every hit has at least one passage.
func (e *Engine) bestChunks(req Request, note int, dense *densePassages, limit int) []scoredChunk {
	weights := e.Weights()
	if v, ok := req.Weights[rankers.SignalTFIDF]; ok {
		weights[rankers.SignalTFIDF] = v
	}
	var lists []rankers.Ranked
	tf := e.tfidf.ChunkScores(req.Query, note)
	var lex []rankers.Candidate
	for c, s := range tf {
		if s > 0 {
			lex = append(lex, rankers.Candidate{Note: note, Chunk: c, Score: float64(s)})
		}
	}
	lists = append(lists, rankers.Ranked{Signal: rankers.SignalTFIDF, Candidates: rankers.TopK(lex, len(lex))})
	if weights[rankers.SignalTFIDF] <= 0 {
		weights[rankers.SignalTFIDF] = 1 // TF-IDF always orders passages
	}
	if dense != nil {
		var dc []rankers.Candidate
		for c, s := range dense.emb.ChunkCosines(dense.q, note) {
			if req.MinSimilarity == 0 || float64(s) >= req.MinSimilarity {
				dc = append(dc, rankers.Candidate{Note: note, Chunk: c, Score: float64(s)})
			}
		}
		lists = append(lists, rankers.Ranked{Signal: rankers.SignalEmbeddings, Candidates: rankers.TopK(dc, len(dc))})
		weights[rankers.SignalEmbeddings] = dense.weight
	}
	fused := rankers.Fuse(lists, e.opts.RRFK, weights)
	out := make([]scoredChunk, 0, min(limit, len(fused)))
	for _, f := range fused[:min(limit, len(fused))] {
		out = append(out, scoredChunk{index: f.Chunk, score: f.Score})
	}
	if len(out) == 0 {
		out = append(out, scoredChunk{index: 0})
	}
	return out
}
