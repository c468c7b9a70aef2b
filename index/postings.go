package index

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// postingsCopy is an in-memory copy of what FTS5's bm25() reads, taken from
// one snapshot of the index: the row count and token total (the averages
// record), each row's size in tokens (the docsize table), and for every
// term its rows with the column-weighted count of its instances (FTS5's
// own tokens, read through fts5vocab, so no tokenizer is reimplemented).
// It scores exactly as bm25() does (see score) without visiting SQLite,
// and it is immutable once built (a live change makes a new copy,
// postingsdelta.go).
type postingsCopy struct {
	stamp  string // the FTS5 structure and averages records it was built from
	nRow   int64
	nToken int64
	ids    []int64   // dense row number → FTS5 rowid, ascending
	size   []uint32  // dense row number → tokens in the row (all columns)
	rows   []copyRow // dense row number → its chunk
	files  []copyFile
	terms  map[string]uint32
	offs   []uint32 // term t's postings are docs[offs[t]:offs[t+1]]
	docs   []uint32 // dense row numbers, ascending per term
	freq   []uint16 // Σ column weight over the term's instances in the row
	// file is the mapped state file docs and freq lie in, when the copy
	// was read from one (nil otherwise): see postings.
	file *statefile.File
	// ov, when set, is what changed since the arrays above were built
	// (postingsdelta.go): they are then the base, shared with older copies, and
	// stamp, nRow and nToken are this copy's own.
	ov *copyOverlay
}

// copyRow is a row's chunk (the chunks table, joined to files).
type copyRow struct {
	file                          uint32 // into files; noFile: no chunk or file row (the join drops it)
	idx, page, lineStart, lineEnd int32
}

// copyFile is a file's path and content hash.
type copyFile struct{ path, hash string }

// noFile marks a row without chunk or file row.
const noFile = ^uint32(0)

// stampSQL reads the FTS5 averages record (row count, token totals) and
// structure record (which every committed write changes: new segments, a
// new write counter). Equal stamps mean equal FTS5 contents.
const stampSQL = `SELECT block FROM fts_data WHERE id IN (1, 10) ORDER BY id`

// readStamp returns the stamp of the snapshot c reads.
func readStamp(c *sqlite3.Conn) (string, error) {
	var b []byte
	err := eachStamp(c, func(block []byte) { b = append(b, block...); b = append(b, 0) })
	return string(b), err
}

// sameStamp reports whether the stamp records each reads make stamp,
// without copying the records.
func sameStamp(each func(fn func(block []byte)) error, stamp string) (bool, error) {
	same, rest := true, stamp
	err := each(func(block []byte) {
		if !same || len(rest) < len(block)+1 || rest[:len(block)] != string(block) || rest[len(block)] != 0 {
			same = false
			return
		}
		rest = rest[len(block)+1:]
	})
	return same && rest == "", err
}

func eachStamp(c *sqlite3.Conn, fn func(block []byte)) error {
	st, _, err := c.Prepare(stampSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Step() {
		fn(st.ColumnRawBlob(0))
	}
	return st.Err()
}

// buildPostingsCopy reads a postingsCopy from c, inside the caller's read transaction.
func buildPostingsCopy(c *sqlite3.Conn) (*postingsCopy, error) {
	m := &postingsCopy{terms: map[string]uint32{}}
	var err error
	if m.stamp, err = readStamp(c); err != nil {
		return nil, err
	}
	if err := m.readAverages(c); err != nil {
		return nil, err
	}
	if err := m.readSizes(c); err != nil {
		return nil, err
	}
	if err := m.readRows(c); err != nil {
		return nil, err
	}
	if err := m.readPostings(c); err != nil {
		return nil, err
	}
	return m, nil
}

// readAverages reads the averages record.
func (m *postingsCopy) readAverages(c *sqlite3.Conn) error {
	st, _, err := c.Prepare(averagesSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	m.nRow, m.nToken, err = stepAverages(st)
	return err
}

// averagesSQL reads FTS5's averages record.
const averagesSQL = `SELECT block FROM fts_data WHERE id = 1`

// stepAverages runs st (averagesSQL) and decodes the record: the row
// count, then one token total per column (FTS5's varints), summed.
func stepAverages(st *sqlite3.Stmt) (nRow, nToken int64, err error) {
	if !st.Step() {
		return 0, 0, errors.Join(errors.New("no averages record"), st.Err(), st.Reset())
	}
	vals, err := varints(st.ColumnRawBlob(0))
	if err != nil || len(vals) == 0 {
		return 0, 0, errors.Join(fmt.Errorf("averages record: %v", err), st.Reset())
	}
	nRow = int64(vals[0])
	for _, v := range vals[1:] {
		nToken += int64(v)
	}
	return nRow, nToken, errors.Join(st.Err(), st.Reset())
}

// readSizes reads every row's size (the sum of its column sizes).
func (m *postingsCopy) readSizes(c *sqlite3.Conn) error {
	st, _, err := c.Prepare(`SELECT id, sz FROM fts_docsize ORDER BY id`)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Step() {
		vals, err := varints(st.ColumnRawBlob(1))
		if err != nil {
			return fmt.Errorf("docsize of row %d: %w", st.ColumnInt64(0), err)
		}
		var n uint64
		for _, v := range vals {
			n += v
		}
		m.ids = append(m.ids, st.ColumnInt64(0))
		m.size = append(m.size, uint32(n))
	}
	return st.Err()
}

// readRows reads the chunk and file row of every row, as Search's lookup
// joins them.
func (m *postingsCopy) readRows(c *sqlite3.Conn) error {
	m.rows = make([]copyRow, len(m.ids))
	for i := range m.rows {
		m.rows[i].file = noFile
	}
	st, _, err := c.Prepare(`SELECT c.id, c.path, c.idx, c.page, c.line_start, c.line_end, f.hash
		FROM chunks c CROSS JOIN files f ON f.path = c.path ORDER BY c.path`)
	if err != nil {
		return err
	}
	defer st.Close()
	for st.Step() {
		d, ok := slices.BinarySearch(m.ids, st.ColumnInt64(0))
		if !ok {
			continue // a chunk without FTS5 row is never a hit
		}
		if p := st.ColumnText(1); len(m.files) == 0 || m.files[len(m.files)-1].path != p {
			m.files = append(m.files, copyFile{path: p, hash: st.ColumnText(6)})
		}
		m.rows[d] = copyRow{file: uint32(len(m.files) - 1), idx: int32(st.ColumnInt(2)), page: int32(st.ColumnInt(3)),
			lineStart: int32(st.ColumnInt(4)), lineEnd: int32(st.ColumnInt(5))}
	}
	return st.Err()
}

// readPostings reads every token instance (fts5vocab's instance table
// lists them by term, then row, then column) into weighted postings.
func (m *postingsCopy) readPostings(c *sqlite3.Conn) error {
	if err := c.Exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.ftsvocab USING fts5vocab(main, fts, instance)`); err != nil {
		return err
	}
	st, _, err := c.Prepare(`SELECT term, doc, col FROM temp.ftsvocab`)
	if err != nil {
		return err
	}
	defer st.Close()
	var last []byte
	for st.Step() {
		term, row, col := st.ColumnRawText(0), st.ColumnInt64(1), st.ColumnRawText(2)
		d, ok := slices.BinarySearch(m.ids, row)
		if !ok {
			return fmt.Errorf("row %d has tokens but no docsize", row)
		}
		w, _, ok := columnWeight(string(col))
		if !ok {
			return fmt.Errorf("unknown column %q", col)
		}
		if len(m.offs) == 0 || !bytes.Equal(term, last) {
			m.terms[string(term)] = uint32(len(m.offs))
			m.offs = append(m.offs, uint32(len(m.docs)))
			last = append(last[:0], term...)
		}
		if len(m.docs) == int(m.offs[len(m.offs)-1]) || m.docs[len(m.docs)-1] != uint32(d) {
			m.docs = append(m.docs, uint32(d))
			m.freq = append(m.freq, 0)
		}
		if f := &m.freq[len(m.freq)-1]; uint32(*f)+w <= math.MaxUint16 {
			*f += uint16(w)
		} else {
			return fmt.Errorf("term %q weighs over %d in row %d", term, math.MaxUint16, row)
		}
	}
	m.offs = append(m.offs, uint32(len(m.docs)))
	return st.Err()
}

// varints decodes a run of SQLite varints (FTS5's record format).
func varints(b []byte) ([]uint64, error) {
	var out []uint64
	for len(b) > 0 {
		var v uint64
		n := 0
		for ; n < 9 && n < len(b); n++ {
			if n == 8 {
				v = v<<8 | uint64(b[n])
				break
			}
			v = v<<7 | uint64(b[n]&0x7f)
			if b[n]&0x80 == 0 {
				break
			}
		}
		if n == len(b) {
			return nil, errors.New("truncated varint")
		}
		out = append(out, v)
		b = b[n+1:]
	}
	return out, nil
}

// bytes estimates the memory the index holds (arrays and term strings,
// plus a map entry's usual overhead).
func (m *postingsCopy) bytes() int {
	n := len(m.ids)*8 + len(m.size)*4 + len(m.offs)*4 + len(m.docs)*4 + len(m.freq)*2 + len(m.rows)*20
	for _, f := range m.files {
		n += len(f.path) + len(f.hash) + 32
	}
	for t := range m.terms {
		n += len(t) + 16 + 4 + 8 // string data, header, value, map slot overhead
	}
	return n + m.ov.bytes()
}

// scratch is one search's accumulator over the dense rows.
type scratch struct {
	acc      []float64
	touched  []uint32
	postings []postings[uint16]
	adds     []postings[uint16] // the overlay's added rows (postingsdelta.go)
	tokens   []string
	rows     []scoredRow // score's result, reused: valid until the scratch is put back
	docs     []uint32    // the query's postings read from the state file (see postings)
	freq     []uint16
}

// score returns every row holding one of tokens (the query's phrases, in
// order, one token each) with its BM25 score under p (accumulate). With
// an overlay, base and added rows are scored apart (each row's terms are
// still summed in query order) with each term's row count over both, and
// removed base rows are dropped.
func (m *postingsCopy) score(p BM25Params, tokens []string, sc *scratch) []scoredRow {
	ps, adds := sc.postings[:0], sc.adds[:0]
	sc.docs, sc.freq = sc.docs[:0], sc.freq[:0]
	for _, tok := range tokens {
		var pl, al postings[uint16]
		if t, ok := m.terms[tok]; ok {
			pl.rows, pl.freq = m.postings(m.offs[t], m.offs[t+1], sc)
		} // else no base row holds it
		if m.ov != nil {
			al = m.ov.add.terms[tok]
			pl.n = int64(len(pl.rows) - m.ov.deadIn(pl.rows) + len(al.rows))
			al.n = pl.n
		}
		ps, adds = append(ps, pl), append(adds, al)
	}
	nb := len(m.ids)
	if n := m.rowCount(); len(sc.acc) < n {
		sc.acc = make([]float64, n+n/64) // room for rows added by live changes
	}
	acc, bm := sc.acc, newScorer(p, m.nRow, m.nToken)
	touched := accumulate(bm, ps, m.size, acc, sc.touched[:0])
	if m.ov != nil {
		k := len(touched)
		touched = accumulate(bm, adds, m.ov.add.size, acc[nb:], touched)
		for i := k; i < len(touched); i++ {
			touched[i] += uint32(nb)
		}
	}
	rows := sc.rows[:0]
	for _, d := range touched {
		if d >= uint32(nb) || (m.rows[d].file != noFile && !m.ov.isDead(d)) {
			rows = append(rows, scoredRow{int64(d), acc[d]})
		}
		acc[d] = 0
	}
	clear(ps) // drop the views of m's arrays
	clear(adds)
	sc.touched, sc.rows, sc.postings, sc.adds = touched, rows, ps, adds
	return rows
}

// emit passes the limit best of rows (from score: ids are dense row
// numbers) to fn as hits, by descending score, then path, then chunk,
// until fn returns false.
func (m *postingsCopy) emit(rows []scoredRow, limit int, fn func(Hit) bool) {
	top := bestRows(rows, limit)
	slices.SortFunc(top, func(a, b scoredRow) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		ra, fa := m.rowAt(a.id)
		rb, fb := m.rowAt(b.id)
		return cmp.Or(strings.Compare(fa.path, fb.path), cmp.Compare(ra.idx, rb.idx))
	})
	for _, r := range top[:min(limit, len(top))] {
		row, f := m.rowAt(r.id)
		if !fn(Hit{Path: f.path, Chunk: int(row.idx), Page: int(row.page), LineStart: int(row.lineStart), LineEnd: int(row.lineEnd),
			Score: r.score, FileHash: f.hash}) {
			return
		}
	}
}

// bestRows returns the limit best of rows and every row tying with the
// last of them, by descending score; rows may be reordered.
func bestRows(rows []scoredRow, limit int) []scoredRow {
	if len(rows) > limit {
		h := make(minHeap, 0, limit)
		for _, r := range rows {
			h.offer(r.score, limit)
		}
		top := make([]scoredRow, 0, limit)
		for _, r := range rows {
			if r.score >= h[0] {
				top = append(top, r)
			}
		}
		rows = top
	}
	sortRows(rows)
	return rows
}

// minHeap keeps the largest scores offered, smallest at [0].
type minHeap []float64

// offer adds v if fewer than k are held or v beats the smallest.
func (h *minHeap) offer(v float64, k int) {
	s := *h
	if len(s) < k {
		s = append(s, v)
		for i := len(s) - 1; i > 0; {
			p := (i - 1) / 2
			if s[p] <= s[i] {
				break
			}
			s[p], s[i] = s[i], s[p]
			i = p
		}
		*h = s
		return
	}
	if v <= s[0] {
		return
	}
	s[0] = v
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(s) && s[l] < s[small] {
			small = l
		}
		if l+1 < len(s) && s[l+1] < s[small] {
			small = l + 1
		}
		if small == i {
			return
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
}
