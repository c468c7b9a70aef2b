package search

import (
	"context"
	"errors"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// savedVectors are the dense signal's vectors read from an engine state,
// or why there are none usable, and once adopted (see
// [Engine.AdoptSavedVectors]) the signal made of them.
type savedVectors struct {
	copy *rankers.SavedVectors
	err  error
	// adopted is the dense signal [Engine.Update] starts from instead of
	// reading every vector from the index.
	adopted *rankers.Embeddings
}

// encodeVectors returns the state's vectors section: e's dense signal
// when it is loaded and its vector stamp known, else nothing (the next
// start reads the vectors from the index).
func (e *Engine) encodeVectors() []byte {
	w := &statefile.Writer{}
	if emb := e.dense(); emb != nil {
		emb.EncodeState(w)
	}
	return w.Buf
}

// decodeSavedVectors reads the state's vectors section (empty when the
// state was saved without them), of the state file f when there is one.
// A damaged section only loses the vectors: they are read from the index.
func decodeSavedVectors(sec []byte, f *statefile.File) savedVectors {
	if len(sec) == 0 {
		return savedVectors{}
	}
	c, err := rankers.DecodeVectorState(sec, f)
	return savedVectors{copy: c, err: err}
}

// errNoVectorsSaved: the state carries no vectors.
var errNoVectorsSaved = errors.New("none saved")

// AdoptSavedVectors makes the next [Engine.Update] of a restored engine
// start its dense signal from the vectors saved with the state, instead
// of reading them all from ix, when ix's vectors are still those (same
// vector stamp) and model made them. Call it before ix is synced: the
// update then reads only the changed notes' vectors, as for a live
// change. It returns why the saved vectors were not taken ("" when they
// were); the update then reads them from ix.
func (e *Engine) AdoptSavedVectors(ctx context.Context, ix *index.Index, model embed.Embedder, alias string) string {
	s := &e.savedVecs
	copied := s.copy
	s.copy = nil
	switch {
	case s.err != nil:
		return "damaged: " + s.err.Error()
	case copied == nil:
		return errNoVectorsSaved.Error()
	case ix == nil:
		return "no index"
	case model == nil:
		return "no model"
	}
	stamp, err := ix.Vectors().Stamp(ctx)
	if err != nil {
		return err.Error()
	}
	emb, err := copied.Embeddings(stamp, model, alias, len(e.snap.Notes), func(n int) int { return len(e.chunks[n]) })
	if err != nil {
		return err.Error()
	}
	s.adopted = emb
	return ""
}

// startVectors is the dense signal an update of e starts from: e's own,
// or the vectors adopted from its state.
func (e *Engine) startVectors() *rankers.Embeddings {
	if emb := e.dense(); emb != nil {
		return emb
	}
	return e.savedVecs.adopted
}
