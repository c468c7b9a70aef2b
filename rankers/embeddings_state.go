package rankers

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// The dense signal's vectors are saved in the engine state as they are
// held in memory (int8 rows with one float32 scale each, and each row's
// note and chunk), with the index's vector stamp they were read at (see
// [index.Vectors.Stamp]). A warm start takes them from there instead
// of reading every vector from SQLite, when the stamp says the index's
// vectors are still those.

// vecSaveVersion changes with the layout EncodeState writes.
const vecSaveVersion = 1

// maxSavedDim bounds a saved vector's dimension (models have hundreds to
// a few thousand).
const maxSavedDim = 1 << 16

// Stamp is the index's vector stamp the vectors were read at, "" when
// unknown (then they are not saved).
func (e *Embeddings) Stamp() string { return e.stamp }

// EncodeState appends the vectors to w and reports whether it did: not
// when their stamp is unknown.
func (e *Embeddings) EncodeState(w *statefile.Writer) bool {
	if e.stamp == "" {
		return false
	}
	rows := len(e.notes)
	w.Uint(vecSaveVersion)
	w.Text(e.stamp)
	w.Text(e.model.ID())
	w.Len(e.dim)
	w.Uint(uint64(e.nNotes))
	w.Len(rows)
	w.Grow(rows*(e.dim+12) + 16)
	w.Pad(8)
	for _, v := range e.scales {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, math.Float32bits(v))
	}
	for _, v := range e.notes {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, uint32(v))
	}
	for _, v := range e.chunks {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, uint32(v))
	}
	w.Buf = append(w.Buf, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e.vecs))), len(e.vecs))...)
	return true
}

// SavedVectors are vectors read back from an engine state (see
// [DecodeVectorState]), not yet checked against an index or a model.
type SavedVectors struct {
	stamp, model string
	dim, nNotes  int
	vecs         []int8
	scales       []float32
	notes        []int32
	chunks       []int32
}

// DecodeVectorState reads what [Embeddings.EncodeState] wrote into the
// heap (the dense scan reads every row): from the state file f with pread
// when data lies in its mapping (see [statefile.File.ReadInto]), else from
// data. Damaged data is an error wrapping statefile.ErrCorrupt.
func DecodeVectorState(data []byte, f *statefile.File) (*SavedVectors, error) {
	r := statefile.NewReader(data)
	if v := r.Uint(); r.Err() == nil && v != vecSaveVersion {
		return nil, fmt.Errorf("%w: vectors of layout %d", statefile.ErrCorrupt, v)
	}
	s := &SavedVectors{stamp: r.Text(), model: r.Text()}
	dim, notes := r.Uint(), r.Uint()
	r.Check(dim > 0 && dim <= maxSavedDim && notes <= math.MaxInt32, "vectors' sizes out of range")
	s.dim, s.nNotes = int(dim), int(notes)
	rows := r.Len(12 + s.dim) // bounded by the data: no damaged count makes a huge allocation
	r.Pad(8)
	if r.Err() != nil {
		return nil, fmt.Errorf("saved vectors: %w", r.Err())
	}
	s.scales = fixedInto(r, f, make([]float32, rows))
	s.notes = fixedInto(r, f, make([]int32, rows))
	s.chunks = fixedInto(r, f, make([]int32, rows))
	s.vecs = fixedInto(r, f, make([]int8, rows*s.dim))
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("saved vectors: %w", err)
	}
	return s, nil
}

// fixedInto reads len(dst) little-endian records of T's size into dst,
// from f with pread when they lie in its mapping, else from the bytes.
func fixedInto[T int8 | int32 | float32](r *statefile.Reader, f *statefile.File, dst []T) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	b := r.Raw(len(dst) * size)
	if r.Err() != nil || len(dst) == 0 {
		return nil
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(b))
	if !f.ReadInto(raw, b) {
		copy(raw, b)
	}
	if size == 4 && binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // stored little-endian
		for i := range dst {
			binary.NativeEndian.PutUint32(raw[4*i:], binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return dst
}

// Embeddings makes the dense signal of the saved vectors for model
// (picked by alias), for a snapshot of nNotes notes whose note n has
// chunks(n) chunks.
// stamp is the index's vector stamp now: a copy saved at another stamp,
// for another model or with a row of no chunk is not used, and the
// error says why.
func (s *SavedVectors) Embeddings(stamp string, model embed.Embedder, alias string, nNotes int, chunks func(note int) int) (*Embeddings, error) {
	switch {
	case stamp == "" || s.stamp != stamp:
		return nil, errors.New("the index's vectors changed since they were saved")
	case model == nil || s.model != model.ID() || s.dim != model.Dim():
		return nil, fmt.Errorf("%w: saved for %s (%d dims)", ErrModelMismatch, s.model, s.dim)
	case s.nNotes != nNotes:
		return nil, fmt.Errorf("%w: vectors of %d notes for a snapshot of %d", statefile.ErrCorrupt, s.nNotes, nNotes)
	}
	for r, n := range s.notes {
		if n < 0 || int(n) >= s.nNotes || s.chunks[r] < 0 || int(s.chunks[r]) >= chunks(int(n)) {
			return nil, fmt.Errorf("%w: saved vector of no chunk", statefile.ErrCorrupt)
		}
	}
	e := &Embeddings{model: model, alias: alias, dim: s.dim, nNotes: s.nNotes, stamp: s.stamp, total: chunkTotal(nNotes, chunks),
		vecs: s.vecs, scales: s.scales, notes: s.notes, chunks: s.chunks}
	e.settle()
	return e, nil
}

// stampAfter is the vector stamp of an update of e that read the vectors
// of fresh notes: e's when it read none and the index's vectors are still
// those e was read at (the update then holds what a full load would, only
// renumbered), else "" (not saved: the next start reads them from the
// index).
func (e *Embeddings) stampAfter(ctx context.Context, ix *index.Index, fresh int) string {
	if fresh > 0 || e.stamp == "" {
		return ""
	}
	if now, err := ix.Vectors().Stamp(ctx); err != nil || now != e.stamp {
		return ""
	}
	return e.stamp
}
