package index

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// A live edit changes a few rows of the index. Rebuilding the in-memory
// copy for it would cost seconds of CPU, and until a rebuild searches
// would read SQLite; instead, each committed write transaction that
// changed FTS5 rows yields a new copy (apply) that shares the old one's
// arrays and carries an overlay: the base rows removed since the arrays
// were built (a bitmap) and the rows added since, with their postings.
// The counts FTS5's bm25() reads (rows, tokens, and the rows holding each
// term) stay exact: the row and token totals are read from FTS5's own
// averages record in the same transaction and checked against the
// overlay's arithmetic, and a term's row count is its live base rows plus
// its added rows. So scores stay bit-identical to a copy built afresh.

// copyOverlayMax bounds the overlay: past copyOverlayMin rows added or
// removed and a sixteenth of the base, a write makes the copy stale
// instead (and it is built afresh once the index is quiet, bm25state.go),
// so that the overlay's per-write rebuild and per-search cost stay small.
const (
	copyOverlayMin = 4096
	copyOverlayDiv = 16
)

// copyOverlay is what changed since a copy's base arrays were built.
type copyOverlay struct {
	dead       []uint64 // bitmap over base rows: removed since
	nDead      int
	deadTokens int64 // Σ size of the dead rows
	baseTokens int64 // the base's token total, when it was built
	add        copyAdd
}

// copyAdd are the rows added since the base was built; their dense row
// numbers follow the base's (len(base ids) + i).
type copyAdd struct {
	ids    []int64
	size   []uint32
	rows   []copyRow // file indexes into files
	files  []copyFile
	toks   [][]termFreq // each row's terms
	terms  map[string]postings[uint16]
	tokens int64 // Σ size
}

// termFreq is a term of a row and its column-weighted count there.
type termFreq struct {
	term string
	freq uint16
}

// copyChange is one committed write's effect on FTS5: the rows it deleted
// and added, and the snapshot's stamp and averages after it.
type copyChange struct {
	removed      []int64
	added        []addedRow
	stamp        string
	nRow, nToken int64
}

// addedRow is an added row as the copy needs it.
type addedRow struct {
	id         int64
	size       uint32
	row        copyRow // file is ignored: path and hash name it
	path, hash string
	toks       []termFreq
}

// isDead reports whether base row d was removed since the base was built.
func (o *copyOverlay) isDead(d uint32) bool {
	return o != nil && o.dead != nil && o.dead[d/64]&(1<<(d%64)) != 0
}

// deadIn counts the removed rows among a term's base postings.
func (o *copyOverlay) deadIn(rows []uint32) int {
	if o == nil || o.nDead == 0 {
		return 0
	}
	n := 0
	for _, d := range rows {
		n += int(o.dead[d/64] >> (d % 64) & 1)
	}
	return n
}

// apply returns the copy after ch (m itself is not changed; the new copy
// shares its base arrays). It fails when ch does not fit m (a row it
// removes is not in m, or the totals disagree with FTS5's), or when the
// overlay would pass limit rows added or removed; the caller then lets the
// copy go stale.
func (m *postingsCopy) apply(ch copyChange, limit int) (*postingsCopy, error) {
	old := m.ov
	if old == nil {
		old = &copyOverlay{baseTokens: m.nToken}
	}
	ov := &copyOverlay{dead: old.dead, nDead: old.nDead, deadTokens: old.deadTokens, baseTokens: old.baseTokens}
	inAdd := make(map[int64]int, len(old.add.ids))
	for i, id := range old.add.ids {
		inAdd[id] = i
	}
	drop := map[int]bool{}
	cloned := false
	for _, id := range ch.removed {
		if i, ok := inAdd[id]; ok && !drop[i] {
			drop[i] = true
			continue
		}
		d, ok := slices.BinarySearch(m.ids, id)
		if !ok || old.isDead(uint32(d)) || ov.isDead(uint32(d)) {
			return nil, fmt.Errorf("removed row %d is not in the copy", id)
		}
		if !cloned {
			ov.dead = make([]uint64, (len(m.ids)+63)/64)
			copy(ov.dead, old.dead)
			cloned = true
		}
		ov.dead[d/64] |= 1 << (d % 64)
		ov.nDead++
		ov.deadTokens += int64(m.size[d])
	}
	rows := make([]addedRow, 0, len(old.add.ids)-len(drop)+len(ch.added))
	for i := range old.add.ids {
		if !drop[i] {
			r := old.add.rows[i]
			f := old.add.files[r.file]
			rows = append(rows, addedRow{id: old.add.ids[i], size: old.add.size[i], row: r, path: f.path, hash: f.hash, toks: old.add.toks[i]})
		}
	}
	rows = append(rows, ch.added...)
	if len(rows) > limit || ov.nDead > limit {
		return nil, fmt.Errorf("overlay over %d rows", limit)
	}
	ov.add = newCopyAdd(rows)
	if live := int64(len(m.ids)-ov.nDead) + int64(len(rows)); live != ch.nRow {
		return nil, fmt.Errorf("%d rows in the copy, %d in FTS5", live, ch.nRow)
	}
	if tokens := ov.baseTokens - ov.deadTokens + ov.add.tokens; tokens != ch.nToken {
		return nil, fmt.Errorf("%d tokens in the copy, %d in FTS5", tokens, ch.nToken)
	}
	n := *m
	n.stamp, n.nRow, n.nToken, n.ov = ch.stamp, ch.nRow, ch.nToken, ov
	return &n, nil
}

// overlayLimit is the most rows the overlay of m may add, or remove:
// max(least, a copyOverlayDiv-th of the base).
func (m *postingsCopy) overlayLimit(least int) int { return max(least, len(m.ids)/copyOverlayDiv) }

// overlayFull reports whether adding and removing that many more rows
// would certainly pass limit (apply checks exactly).
func (m *postingsCopy) overlayFull(added, removed, limit int) bool {
	nAdd, nDead := 0, 0
	if m.ov != nil {
		nAdd, nDead = len(m.ov.add.ids), m.ov.nDead
	}
	return nAdd+added-removed > limit || (removed > nAdd && nDead+removed-nAdd > limit)
}

// newCopyAdd indexes added rows: per-term postings over their positions.
func newCopyAdd(rows []addedRow) copyAdd {
	a := copyAdd{terms: map[string]postings[uint16]{}}
	fileOf := map[string]uint32{}
	for i, r := range rows {
		f, ok := fileOf[r.path]
		if !ok {
			f = uint32(len(a.files))
			fileOf[r.path] = f
			a.files = append(a.files, copyFile{path: r.path, hash: r.hash})
		}
		row := r.row
		row.file = f
		a.ids, a.size, a.rows, a.toks = append(a.ids, r.id), append(a.size, r.size), append(a.rows, row), append(a.toks, r.toks)
		a.tokens += int64(r.size)
		for _, tf := range r.toks {
			p := a.terms[tf.term]
			p.rows, p.freq = append(p.rows, uint32(i)), append(p.freq, tf.freq)
			a.terms[tf.term] = p
		}
	}
	return a
}

// rowAt returns dense row d's chunk and file (d < rowCount()).
func (m *postingsCopy) rowAt(d int64) (copyRow, copyFile) {
	if nb := int64(len(m.rows)); d >= nb {
		r := m.ov.add.rows[d-nb]
		return r, m.ov.add.files[r.file]
	}
	r := m.rows[d]
	if r.file == noFile {
		return r, copyFile{}
	}
	return r, m.files[r.file]
}

// rowCount is the number of dense rows: the base's and the added ones.
func (m *postingsCopy) rowCount() int {
	if m.ov == nil {
		return len(m.ids)
	}
	return len(m.ids) + len(m.ov.add.ids)
}

// flatten returns a copy without overlay holding the same rows, terms and
// counts (for saving: the saved layout has no overlay). Base postings of
// a copy read from a state file are read from the file, not the mapping.
func (m *postingsCopy) flatten() (*postingsCopy, error) {
	if m.ov == nil {
		return m, nil
	}
	ov, nb := m.ov, len(m.ids)
	docs, freq := m.docs, m.freq
	if m.file != nil {
		d, f := make([]uint32, len(docs)), make([]uint16, len(freq))
		if m.file.ReadInto(bytesOf(d), bytesOf(docs)) && m.file.ReadInto(bytesOf(f), bytesOf(freq)) {
			docs, freq = d, f
		}
	}
	// New dense numbers: live base rows and added rows merged by rowid.
	order := make([]int, len(ov.add.ids)) // added rows by rowid
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ov.add.ids[a], ov.add.ids[b]) })
	n := &postingsCopy{stamp: m.stamp, nRow: m.nRow, nToken: m.nToken, terms: map[string]uint32{}}
	baseTo, addTo := make([]uint32, nb), make([]uint32, len(ov.add.ids))
	fileOf := map[string]uint32{}
	put := func(id int64, size uint32, r copyRow, f copyFile) uint32 {
		if r.file != noFile {
			k, ok := fileOf[f.path]
			if !ok {
				k = uint32(len(n.files))
				fileOf[f.path] = k
				n.files = append(n.files, f)
			}
			r.file = k
		}
		n.ids, n.size, n.rows = append(n.ids, id), append(n.size, size), append(n.rows, r)
		return uint32(len(n.ids) - 1)
	}
	for b, a := 0, 0; b < nb || a < len(order); {
		if b < nb && ov.isDead(uint32(b)) {
			b++
			continue
		}
		if a < len(order) && (b == nb || ov.add.ids[order[a]] < m.ids[b]) {
			i := order[a]
			r := ov.add.rows[i]
			addTo[i] = put(ov.add.ids[i], ov.add.size[i], r, ov.add.files[r.file])
			a++
			continue
		}
		r, f := m.rowAt(int64(b))
		baseTo[b] = put(m.ids[b], m.size[b], r, f)
		b++
	}
	names := make([]string, len(m.terms))
	for t, id := range m.terms {
		names[id] = t
	}
	for t := range ov.add.terms {
		if _, ok := m.terms[t]; !ok {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	var pd []uint32
	var pf []uint16
	for _, t := range names {
		pd, pf = pd[:0], pf[:0]
		if id, ok := m.terms[t]; ok {
			for j := m.offs[id]; j < m.offs[id+1]; j++ {
				if d := docs[j]; !ov.isDead(d) {
					pd, pf = append(pd, baseTo[d]), append(pf, freq[j])
				}
			}
		}
		if ap, ok := ov.add.terms[t]; ok {
			for j, i := range ap.rows {
				pd, pf = append(pd, addTo[i]), append(pf, ap.freq[j])
			}
		}
		if len(pd) == 0 {
			continue // no row holds it any more
		}
		idx := make([]int, len(pd))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(pd[a], pd[b]) })
		n.terms[t] = uint32(len(n.offs))
		n.offs = append(n.offs, uint32(len(n.docs)))
		for _, i := range idx {
			n.docs, n.freq = append(n.docs, pd[i]), append(n.freq, pf[i])
		}
	}
	n.offs = append(n.offs, uint32(len(n.docs)))
	if err := n.check(); err != nil {
		return nil, fmt.Errorf("flattened copy: %w", err)
	}
	if int64(len(n.ids)) != n.nRow {
		return nil, errors.New("flattened copy: row count disagrees")
	}
	return n, nil
}

// overlayBytes estimates the memory the overlay holds.
func (o *copyOverlay) bytes() int {
	if o == nil {
		return 0
	}
	n := len(o.dead)*8 + len(o.add.ids)*(8+4+20+24)
	for _, toks := range o.add.toks {
		n += len(toks) * 24
	}
	for t, p := range o.add.terms {
		n += len(t) + 48 + len(p.rows)*6
	}
	return n
}
