package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// savedMem is the in-memory BM25 copy of the index read from an engine
// state, or why there is none usable.
type savedMem struct {
	copy *index.SavedMem
	err  error
}

// decodeSavedMem reads the state's BM25 section (empty when the state was
// saved without a current copy), of the state file f when there is one. A
// damaged section only loses the copy: it is built again from the index.
func decodeSavedMem(sec []byte, f *statefile.File) savedMem {
	if len(sec) == 0 {
		return savedMem{}
	}
	c, err := index.DecodeMemFile(sec, f)
	return savedMem{copy: c, err: err}
}

// AdoptSavedMem hands the in-memory BM25 copy saved with a restored
// engine's state to the index ix (synced, the engine's): ix uses it when
// it was built from ix as ix is now, and the engine lets go of it either
// way. It returns why the copy was not used ("" when it was), and an
// error only when ix could not be read.
func (e *Engine) AdoptSavedMem(ctx context.Context, ix *index.Index) (string, error) {
	s := e.savedMem
	e.savedMem = savedMem{}
	switch {
	case s.err != nil:
		return "damaged: " + s.err.Error(), nil
	case ix == nil:
		return "no index", nil
	}
	return ix.AdoptMem(ctx, s.copy)
}
