package search

import "github.com/enquire-mcp/enquire-mcp/chunk"

// NoteChunks lets the external tests compare engines chunk by chunk.
func (e *Engine) NoteChunks(note int) []chunk.Chunk { return e.chunks[note] }
