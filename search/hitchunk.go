package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// HitChunk returns the chunk a hit of query stands for: its own chunk (a
// block hit), else the chunk holding the first line of its snippet, else
// (a PDF hit carries a page, not lines) the note's chunk the lexical
// TF-IDF signal ranks first for query, the first chunk when none
// matches. ok is false when the note has no such chunk.
func (e *Engine) HitChunk(ctx context.Context, h Hit, query string) (c chunk.Chunk, ok bool) {
	chunks := e.chunks[h.Note]
	ci := h.Chunk
	if ci == rankers.NoChunk && h.LineStart > 0 {
		ci = chunkAt(chunks, h.LineStart)
	}
	if ci < 0 {
		ci = e.bestChunk(ctx, h.Note, query)
	}
	if ci < 0 || ci >= len(chunks) {
		return chunk.Chunk{}, false
	}
	return chunks[ci], true
}

// bestChunk is the chunk of a note that TF-IDF ranks first for the query
// (0 when none matches).
func (e *Engine) bestChunk(ctx context.Context, note int, query string) int {
	cands, err := e.tfidf.Rank(ctx, rankers.Request{Query: query, Limit: 1, Block: true, Allow: func(i int) bool { return i == note }})
	if err != nil || len(cands) == 0 {
		return 0
	}
	return cands[0].Chunk
}

// chunkAt is the index of the chunk holding a file line (-1: none).
func chunkAt(chunks []chunk.Chunk, line int) int {
	for i, c := range chunks {
		if c.LineStart <= line && line <= c.LineEnd {
			return i
		}
	}
	return -1
}

// Backlinks returns the links from other notes to a note, ordered by the
// linking note's path, then by position.
func (e *Engine) Backlinks(note int) []graph.Edge { return e.graph.Backlinks(note) }

// Outbound returns the resolved links from a note to other notes, in
// document order.
func (e *Engine) Outbound(note int) []graph.Edge { return e.graph.Outbound(note) }
