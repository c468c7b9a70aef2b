package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// savedPostings is the in-memory BM25 copy of the index read from an engine
// state, or why there is none usable.
type savedPostings struct {
	copy *index.SavedPostings
	err  error
}

// decodeSavedPostings reads the state's BM25 section (empty when the state was
// saved without a current copy), of the state file f when there is one. A
// damaged section only loses the copy: it is built again from the index.
func decodeSavedPostings(sec []byte, f *statefile.File) savedPostings {
	if len(sec) == 0 {
		return savedPostings{}
	}
	c, err := index.DecodePostingsFile(sec, f)
	return savedPostings{copy: c, err: err}
}

// AdoptSavedPostings hands the in-memory BM25 copy saved with a restored
// engine's state to the index ix (synced, the engine's): ix uses it when
// it was built from ix as ix is now, and the engine lets go of it either
// way. It returns why the copy was not used ("" when it was), and an
// error only when ix could not be read.
func (e *Engine) AdoptSavedPostings(ctx context.Context, ix *index.Index) (string, error) {
	s := e.savedPostings
	e.savedPostings = savedPostings{}
	switch {
	case s.err != nil:
		return "damaged: " + s.err.Error(), nil
	case ix == nil:
		return "no index", nil
	}
	return ix.BM25().AdoptPostings(ctx, s.copy)
}
