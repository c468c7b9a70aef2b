package index

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// The scoring of a search the in-memory copy cannot answer (it is stale
// or not built yet, or a phrase is several tokens): the same BM25 as the
// copy's (accumulate), over postings read from SQLite for this query
// only, in the caller's read transaction. FTS5's own bm25() hard-codes
// k1 and b, so it no longer ranks; the tests keep it as the reference.

// vocabSetup makes the fts5vocab table the reads go through (a temp
// table: per connection, no write to the index). Search runs it before
// its read transaction begins (a rollback would drop the table).
const vocabSetup = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.memvocab USING fts5vocab(main, fts, instance)`

// instancesSQL reads one token's instances: row, column, token offset.
// fts5vocab answers a term = constraint by seeking the term.
const instancesSQL = `SELECT doc, col, offset FROM temp.memvocab WHERE term = ?`

// sizesSQL reads the docsize record of a list of row ids.
const sizesSQL = `SELECT j.value, d.sz FROM json_each(?) j CROSS JOIN fts_docsize d ON d.id = j.value`

// instance is one token instance, or (after matching) the start of one
// phrase instance.
type instance struct {
	row int64
	col int32 // the column's position (columnWeights)
	off int32
}

func compareInstance(a, b instance) int {
	return cmp.Or(cmp.Compare(a.row, b.row), cmp.Compare(a.col, b.col), cmp.Compare(a.off, b.off))
}

// readScores scores every row holding one of phrases (each the tokens of
// one of the query's terms, in order) by BM25 under p, reading the
// averages record, each phrase's instances and the matched rows' sizes
// from the snapshot c reads. Rows are returned by FTS5 row id.
func (ix *Index) readScores(c *sqlite3.Conn, p BM25Params, phrases [][]string) ([]scoredRow, error) {
	st, err := ix.mem.stmts.get(c, averagesSQL)
	if err != nil {
		return nil, err
	}
	nRow, nToken, err := stepAverages(st)
	if err != nil {
		return nil, err
	}
	if st, err = ix.mem.stmts.get(c, instancesSQL); err != nil {
		return nil, err
	}
	byRow := make([]phraseRows, len(phrases))
	var ids []int64
	for i, toks := range phrases {
		if byRow[i], err = phraseInstances(st, toks); err != nil {
			return nil, fmt.Errorf("phrase %q: %w", strings.Join(toks, " "), err)
		}
		ids = append(ids, byRow[i].ids...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	size, err := ix.readSizes(c, ids)
	if err != nil {
		return nil, err
	}
	ps := make([]postings[uint32], len(byRow))
	for i, r := range byRow {
		ps[i] = r.dense(ids)
	}
	acc := make([]float64, len(ids))
	accumulate(newBM25(p, nRow, nToken), ps, size, acc, nil)
	rows := make([]scoredRow, len(ids))
	for d, id := range ids {
		rows[d] = scoredRow{id, acc[d]}
	}
	return rows, nil
}

// phraseRows are the rows holding one phrase (FTS5 row ids, ascending)
// and its weighted count of instances in each.
type phraseRows struct {
	ids  []int64
	freq []uint32
}

// dense returns r over the positions of its rows in ids (which holds
// them all, ascending).
func (r phraseRows) dense(ids []int64) postings[uint32] {
	p := postings[uint32]{rows: make([]uint32, len(r.ids)), freq: r.freq}
	d := 0
	for i, id := range r.ids {
		for ids[d] != id {
			d++
		}
		p.rows[i] = uint32(d)
	}
	return p
}

// phraseInstances returns the rows holding the phrase toks and its
// weighted count in each. A phrase instance is, as in FTS5, its tokens at
// consecutive offsets of one column; a phrase of no tokens matches
// nothing.
func phraseInstances(st *sqlite3.Stmt, toks []string) (phraseRows, error) {
	if len(toks) == 0 {
		return phraseRows{}, nil
	}
	starts, err := tokenInstances(st, toks[0])
	for j := 1; j < len(toks) && err == nil && len(starts) > 0; j++ {
		var next []instance
		if next, err = tokenInstances(st, toks[j]); err == nil {
			starts = followedBy(starts, next, int32(j))
		}
	}
	if err != nil {
		return phraseRows{}, err
	}
	var r phraseRows
	for _, in := range starts {
		w := uint32(columnWeights[in.col].weight)
		if n := len(r.ids); n > 0 && r.ids[n-1] == in.row {
			if r.freq[n-1] > math.MaxUint32-w {
				return phraseRows{}, fmt.Errorf("weighs over %d in row %d", uint32(math.MaxUint32), in.row)
			}
			r.freq[n-1] += w
			continue
		}
		r.ids = append(r.ids, in.row)
		r.freq = append(r.freq, w)
	}
	return r, nil
}

// followedBy keeps the instances of starts that next continues at
// offset gap in the same row and column (both sorted).
func followedBy(starts, next []instance, gap int32) []instance {
	kept, k := starts[:0], 0
	for _, s := range starts {
		want := instance{s.row, s.col, s.off + gap}
		for k < len(next) && compareInstance(next[k], want) < 0 {
			k++
		}
		if k < len(next) && next[k] == want {
			kept = append(kept, s)
		}
	}
	return kept
}

// tokenInstances reads every instance of tok (st: instancesSQL), sorted
// by row, column and offset.
func tokenInstances(st *sqlite3.Stmt, tok string) ([]instance, error) {
	if err := st.BindText(1, tok); err != nil {
		return nil, err
	}
	var out []instance
	var lastCol []byte
	pos := 0
	for st.Step() {
		if col := st.ColumnRawText(1); string(col) != string(lastCol) {
			var ok bool
			if _, pos, ok = columnWeight(string(col)); !ok {
				return nil, errorsJoinReset(st, fmt.Errorf("unknown column %q", col))
			}
			lastCol = append(lastCol[:0], col...)
		}
		out = append(out, instance{row: st.ColumnInt64(0), col: int32(pos), off: int32(st.ColumnInt(2))})
	}
	if err := errorsJoinReset(st, st.Err()); err != nil {
		return nil, err
	}
	if !slices.IsSortedFunc(out, compareInstance) {
		slices.SortFunc(out, compareInstance)
	}
	return out, nil
}

// errorsJoinReset resets st and returns err, or the reset's error.
func errorsJoinReset(st *sqlite3.Stmt, err error) error {
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	return err
}

// readSizes returns the size in tokens (all columns) of each row of ids.
func (ix *Index) readSizes(c *sqlite3.Conn, ids []int64) ([]uint32, error) {
	st, err := ix.mem.stmts.get(c, sizesSQL)
	if err != nil {
		return nil, err
	}
	var list strings.Builder
	list.Grow(len(ids) * 7)
	list.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			list.WriteByte(',')
		}
		list.WriteString(strconv.FormatInt(id, 10))
	}
	list.WriteByte(']')
	if err := st.BindText(1, list.String()); err != nil {
		return nil, err
	}
	size := make([]uint32, len(ids))
	got, d := 0, 0
	for st.Step() {
		id := st.ColumnInt64(0)
		for d < len(ids) && ids[d] != id {
			d++
		}
		vals, err := varints(st.ColumnRawBlob(1))
		if err != nil || d == len(ids) {
			return nil, errorsJoinReset(st, fmt.Errorf("docsize of row %d: %v", id, err))
		}
		var n uint64
		for _, v := range vals {
			n += v
		}
		size[d] = uint32(n)
		got++
	}
	if err := errorsJoinReset(st, st.Err()); err != nil {
		return nil, err
	}
	if got != len(ids) {
		return nil, fmt.Errorf("%d of %d matched rows have no docsize", len(ids)-got, len(ids))
	}
	return size, nil
}
