package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// The in-memory BM25 copy is saved inside the engine state, so that a
// warm start has it at once instead of building it again from FTS5
// (6.7 s of CPU at 107,000 notes). A saved copy is used only with the
// index it was built from: the index's instance id (a random id written
// when its schema is created, so a rebuilt or another index has another)
// and the FTS5 stamp (which every committed write changes) must both
// match; otherwise it is dropped and built again as without a state.

// postingsSaveVersion changes with the layout EncodePostings writes.
const postingsSaveVersion = 1

// SavedPostings is an in-memory BM25 copy read back from an engine state
// (see [DecodePostings]), not yet checked against an index.
type SavedPostings struct {
	instance string
	m        *postingsCopy
}

// EncodePostings appends the in-memory BM25 copy to w, with the index's
// instance id, when the copy is current (built from the index as it is
// now), and reports whether it did; with none current it appends nothing.
func (bm *BM25) EncodePostings(ctx context.Context, w *statefile.Writer) (bool, error) {
	stamp, err := bm.EncodePostingsStamped(ctx, w)
	return stamp != "", err
}

// EncodePostingsStamped is [BM25.EncodePostings] returning the stamp of the copy
// it appended (what [Index.Stamps] returns while the index is as it
// was then), "" when it appended none.
func (bm *BM25) EncodePostingsStamped(ctx context.Context, w *statefile.Writer) (string, error) {
	m, instance := bm.idx.Load(), bm.ix.InstanceID()
	if m == nil || instance == "" {
		return "", nil
	}
	var same bool
	err := bm.ix.reader(ctx, func(c *sqlite3.Conn) (err error) {
		same, err = bm.stampIs(c, m.stamp)
		return err
	})
	if err != nil || !same {
		return "", err
	}
	flat, err := m.flatten() // a copy that followed live changes: saved as one built afresh
	if err != nil {
		return "", nil
	}
	flat.encode(w, instance)
	return instance + "\x00" + m.stamp, nil
}

// Stamps returns what identifies the index's FTS5 contents now (its
// instance id and FTS5 stamp), and its vector stamp ("" when it keeps no
// embedding model), read in one snapshot: equal to a saved copy's
// (EncodePostingsStamped, rankers.Embeddings.Stamp), that copy is current.
func (ix *Index) Stamps(ctx context.Context) (postings, vectors string, err error) {
	instance := ix.InstanceID()
	if instance == "" {
		return "", "", nil
	}
	err = ix.reader(ctx, func(c *sqlite3.Conn) error {
		return inReadTx(c, func() error {
			fts, err := readStamp(c)
			if err != nil {
				return err
			}
			postings = instance + "\x00" + fts
			id, _, _, err := modelOf(c)
			if err != nil || id == "" {
				return err
			}
			vectors, err = ix.vectors.vectorStamp(c)
			return err
		})
	})
	if err != nil {
		return "", "", fmt.Errorf("index %s: stamp: %w", ix.path, err)
	}
	return postings, vectors, nil
}

// DecodePostings reads what [BM25.EncodePostings] wrote. The copy's arrays share
// data's memory where they can (data must never change afterwards).
func DecodePostings(data []byte) (*SavedPostings, error) { return DecodePostingsFile(data, nil) }

// DecodePostingsFile is [DecodePostings] of data in the mapped state file f (f.Data
// holds it): searches then read the copy's postings, its largest part,
// from the file with pread into reused buffers, not through the mapping
// (see [statefile.File.Copy] for why).
func DecodePostingsFile(data []byte, f *statefile.File) (*SavedPostings, error) {
	r := statefile.NewReader(data)
	if v := r.Uint(); r.Err() == nil && v != postingsSaveVersion {
		return nil, fmt.Errorf("%w: in-memory BM25 copy of layout %d", statefile.ErrCorrupt, v)
	}
	s := &SavedPostings{instance: r.Text()}
	s.m = decodePostingsCopy(r)
	s.m.file = f
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("in-memory BM25 copy: %w", err)
	}
	if err := s.m.check(); err != nil {
		return nil, fmt.Errorf("in-memory BM25 copy: %w: %v", statefile.ErrCorrupt, err)
	}
	return s, nil
}

// AdoptPostings makes searches use the saved copy when it was built from this
// index as it is now (same instance id, same FTS5 stamp). Otherwise it
// returns why not, and the copy is built again when searches need it.
func (bm *BM25) AdoptPostings(ctx context.Context, s *SavedPostings) (string, error) {
	switch {
	case s == nil || s.m == nil:
		return "none saved", nil
	case bm.off:
		return "in-memory copy off", nil
	case s.instance == "" || s.instance != bm.ix.InstanceID():
		return "saved for another index (instance id differs)", nil
	}
	var same bool
	err := bm.ix.reader(ctx, func(c *sqlite3.Conn) (err error) {
		same, err = bm.stampIs(c, s.m.stamp)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("index %s: %w", bm.ix.path, err)
	}
	if !same {
		return "the index changed since it was saved", nil
	}
	bm.idx.CompareAndSwap(nil, s.m)
	return "", nil
}

// encode writes m after instance: counts and strings as varints, the arrays
// as aligned fixed-width little-endian records (read in place).
func (m *postingsCopy) encode(w *statefile.Writer, instance string) {
	w.Uint(postingsSaveVersion)
	w.Text(instance)
	w.Text(m.stamp)
	w.Int(m.nRow)
	w.Int(m.nToken)
	w.Len(len(m.files))
	for _, f := range m.files {
		w.Text(f.path)
		w.Text(f.hash)
	}
	names := make([]string, len(m.terms))
	for t, id := range m.terms {
		names[id] = t
	}
	w.Strings(names)
	w.Len(len(m.ids))
	w.Len(len(m.docs))
	w.Grow(len(m.ids)*32 + len(m.offs)*4 + len(m.docs)*6 + 32)
	w.Pad(8)
	for _, v := range m.ids {
		w.Buf = binary.LittleEndian.AppendUint64(w.Buf, uint64(v))
	}
	for _, v := range m.size {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v)
	}
	for _, r := range m.rows {
		for _, v := range [...]uint32{r.file, uint32(r.idx), uint32(r.page), uint32(r.lineStart), uint32(r.lineEnd)} {
			w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v)
		}
	}
	for _, v := range m.offs {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v)
	}
	for _, v := range m.docs {
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v)
	}
	for _, v := range m.freq {
		w.Buf = binary.LittleEndian.AppendUint16(w.Buf, v)
	}
}

// decodePostingsCopy reads what encode wrote after the version and
// instance id; check validates it.
func decodePostingsCopy(r *statefile.Reader) *postingsCopy {
	m := &postingsCopy{stamp: r.Text(), nRow: r.Int(), nToken: r.Int()}
	m.files = make([]copyFile, r.Len(2))
	for i := range m.files {
		m.files[i] = copyFile{path: r.Text(), hash: r.Text()}
	}
	names := r.Strings()
	m.terms = make(map[string]uint32, len(names))
	for i, t := range names {
		m.terms[t] = uint32(i)
	}
	if len(m.terms) != len(names) {
		r.Check(false, "a term twice")
	}
	nRows, nDocs := r.Len(8), r.Len(6)
	r.Pad(8)
	m.ids = fixed(r, nRows, 8, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) })
	m.size = fixed(r, nRows, 4, binary.LittleEndian.Uint32)
	m.rows = fixed(r, nRows, int(unsafe.Sizeof(copyRow{})), func(b []byte) copyRow {
		u := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
		return copyRow{file: u(0), idx: int32(u(1)), page: int32(u(2)), lineStart: int32(u(3)), lineEnd: int32(u(4))}
	})
	m.offs = fixed(r, len(names)+1, 4, binary.LittleEndian.Uint32)
	m.docs = fixed(r, nDocs, 4, binary.LittleEndian.Uint32)
	m.freq = fixed(r, nDocs, 2, binary.LittleEndian.Uint16)
	return m
}

// fixed reads n records of size bytes each: in place when they are
// aligned for T on a little-endian machine (T's memory layout is then the
// record's), else decoded one by one into a new array.
func fixed[T any](r *statefile.Reader, n, size int, dec func([]byte) T) []T {
	var zero T
	if n > 0 && uintptr(size) != unsafe.Sizeof(zero) {
		panic("index: record size differs from its type's")
	}
	b := r.Raw(n * size)
	if r.Err() != nil || n == 0 {
		return nil
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(zero) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = dec(b[i*size:])
	}
	return out
}

// check verifies that every index into m's arrays is in range, so that
// a damaged copy is an error and never a panic in a search.
func (m *postingsCopy) check() error {
	switch {
	case len(m.size) != len(m.ids) || len(m.rows) != len(m.ids):
		return errors.New("row arrays disagree")
	case len(m.offs) != len(m.terms)+1 || m.offs[0] != 0 || int(m.offs[len(m.offs)-1]) != len(m.docs):
		return errors.New("term offsets disagree with the postings")
	case len(m.freq) != len(m.docs):
		return errors.New("postings disagree")
	case m.stamp == "":
		return errors.New("no stamp")
	}
	for i := 1; i < len(m.ids); i++ {
		if m.ids[i] <= m.ids[i-1] {
			return errors.New("row ids not increasing")
		}
	}
	for _, r := range m.rows {
		if r.file != noFile && int(r.file) >= len(m.files) {
			return errors.New("row of an unknown file")
		}
	}
	for t := 1; t < len(m.offs); t++ {
		if m.offs[t] < m.offs[t-1] {
			return errors.New("term offsets decreasing")
		}
	}
	for _, d := range m.docs {
		if int(d) >= len(m.ids) {
			return errors.New("posting of an unknown row")
		}
	}
	return nil
}
