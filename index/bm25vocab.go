package index

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// The fts5vocab reads of a phrase's rows and weighted counts: the
// fallback of readScores when a count is not solved from bm25()
// (solveCounts), and the check of that solution in the tests. They read
// through temp.ftsvocab (vocabSetup), as the in-memory copy's build does.

// instancesSQL reads one token's instances: row, column, token offset.
// fts5vocab answers a term = constraint by seeking the term (the plan
// says "VIRTUAL TABLE INDEX 271": bit 0x100 is that constraint).
const instancesSQL = `SELECT doc, col, offset FROM temp.ftsvocab WHERE term = ?`

// weightedSQL reads one token's rows with its column-weighted count in
// each, summed by SQLite (in a temp b-tree: far fewer rows to step
// through than its instances). Its CASE names every column of the table.
// Like instancesSQL, the plan uses fts5vocab's term-equality bit (0x100
// of "VIRTUAL TABLE INDEX 263"), so only the term's postings are read.
func weightedSQL() string {
	var b strings.Builder
	b.WriteString(`SELECT doc, sum(CASE col`)
	for _, c := range columnWeights {
		fmt.Fprintf(&b, ` WHEN '%s' THEN %d`, c.name, c.weight)
	}
	b.WriteString(` END) FROM temp.ftsvocab WHERE term = ? GROUP BY doc`)
	return b.String()
}

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

// vocabRows reads the rows holding the phrase toks and its weighted
// count in each from fts5vocab: tokenRows for one token, phraseInstances
// for several.
func (bm *BM25) vocabRows(c *sqlite3.Conn, toks []string) (phraseRows, error) {
	sql := instancesSQL
	if len(toks) == 1 {
		sql = weightedSQL()
	}
	st, err := bm.stmts.get(c, sql)
	if err != nil {
		return phraseRows{}, err
	}
	if len(toks) == 1 {
		return tokenRows(st, toks[0])
	}
	return phraseInstances(st, toks)
}

// tokenRows returns the rows holding tok and its weighted count in each
// (st: weightedSQL).
func tokenRows(st *sqlite3.Stmt, tok string) (phraseRows, error) {
	if err := st.BindText(1, tok); err != nil {
		return phraseRows{}, err
	}
	var r phraseRows
	for st.Step() {
		w := st.ColumnInt64(1)
		if w <= 0 || w > math.MaxUint32 {
			return phraseRows{}, errorsJoinReset(st, fmt.Errorf("row %d: weighted count %d out of range", st.ColumnInt64(0), w))
		}
		r.ids = append(r.ids, st.ColumnInt64(0))
		r.freq = append(r.freq, uint32(w))
	}
	if err := errorsJoinReset(st, st.Err()); err != nil {
		return phraseRows{}, err
	}
	if !slices.IsSorted(r.ids) {
		return phraseRows{}, fmt.Errorf("token %q: rows out of order", tok)
	}
	return r, nil
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
