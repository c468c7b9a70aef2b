package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// RestoreStateFile is [RestoreState] of a state file opened with
// [statefile.Open]. The engine (and every engine updated from it) then reads
// the text searches show (snippets, passages, chunks, reranked text,
// feedback) and the saved BM25 copy's postings from the file with pread
// instead of through its mapping: on a kernel that
// keeps files in large page-cache folios, every touch of the mapping
// makes up to 2 MB resident, so after a few hundred searches most of the
// notes' bodies would count in the process's memory.
func RestoreStateFile(ctx context.Context, f *statefile.File, key, root string, filter vault.Filter, an *analysis.Analyzer, opts Options) (*Engine, error) {
	return restore(ctx, f.Data, f, key, root, filter, an, opts)
}

// readable returns n, or a copy of it whose Body is read from the state
// file when the body lies in its mapping (see [RestoreStateFile]). Every
// search-time read of a note's body goes through it.
func (e *Engine) readable(n *vault.Note) *vault.Note {
	if e.state == nil {
		return n
	}
	c := *n
	c.Body = e.state.Copy(n.Body)
	return &c
}
