package search

import "context"

// MaxChunkContext is the most neighbouring chunks GetChunk returns on each
// side.
const MaxChunkContext = 10

// ChunkView is a chunk with its neighbours, as obsidian_get_chunk shows
// it.
type ChunkView struct {
	Passage
	// Path and Title are the note's; Headings is the heading path at the
	// chunk's first line, outermost first.
	Path, Title string
	Headings    []string
	// Chunks is the note's chunk count.
	Chunks int
	// Before and After are up to the requested number of neighbouring
	// chunks, in file order.
	Before, After []Passage
}

// GetChunk returns the chunk a chunk id names with up to around
// neighbouring chunks on each side. An unknown, malformed or stale id is
// an error wrapping ErrInvalid that names the note.
func (e *Engine) GetChunk(ctx context.Context, id string, around int) (*ChunkView, error) {
	if around < 0 || around > MaxChunkContext {
		return nil, invalid("context must be between 0 and %d, got %d", MaxChunkContext, around)
	}
	note, index, err := e.resolveChunk(id)
	if err != nil {
		return nil, err
	}
	n, chunks := e.readable(e.snap.Notes[note]), e.chunks[note]
	file := e.readFileText(ctx, n)
	c := chunks[index]
	v := &ChunkView{Passage: e.passage(n, file, c, 0), Path: n.Path, Title: n.Title, Headings: c.Headings, Chunks: len(chunks)}
	for _, o := range chunks[max(0, index-around):index] {
		v.Before = append(v.Before, e.passage(n, file, o, 0))
	}
	for _, o := range chunks[index+1 : min(len(chunks), index+1+around)] {
		v.After = append(v.After, e.passage(n, file, o, 0))
	}
	return v, ctx.Err()
}
