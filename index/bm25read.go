package index

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// The scoring of a search the in-memory copy cannot answer (it is stale
// or not built yet, or a phrase is several tokens): the same BM25 as the
// copy's (accumulate), over postings read from SQLite for this query
// only, in the caller's read transaction: FTS5 says which rows hold each
// phrase, and FTS5's own vocabulary table (fts5vocab, bm25vocab.go) how
// many times. FTS5's bm25() hard-codes k1 and b, so it does not rank; the
// tests keep it as the reference the counts are checked against.

// vocabSetup makes the fts5vocab table the reads go through (a temp
// table: per connection, no write to the index). Search runs it before
// its read transaction begins (a rollback would drop the table).
const vocabSetup = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.ftsvocab USING fts5vocab(main, fts, instance)`

// sizesSQL reads the docsize record of a list of row ids.
const sizesSQL = `SELECT j.value, d.sz FROM json_each(?) j CROSS JOIN fts_docsize d ON d.id = j.value`

// readScores scores every row holding one of phrases (each the tokens of
// one of the query's terms, in order; terms are MatchExpr's quoted terms)
// by BM25 under p, reading from the snapshot c reads the averages record,
// each phrase's rows (matchPhrase) with its weighted count in each
// (fts5vocab), and the matched rows' sizes. Rows are returned by FTS5
// row id.
func (bm *BM25) readScores(c *sqlite3.Conn, p BM25Params, terms []string, phrases [][]string) ([]scoredRow, error) {
	st, err := bm.stmts.get(c, averagesSQL)
	if err != nil {
		return nil, err
	}
	nRow, nToken, err := stepAverages(st)
	if err != nil {
		return nil, err
	}
	matched := make([]matchedPhrase, len(phrases))
	var ids []int64
	for i, toks := range phrases {
		if len(toks) == 0 {
			continue // FTS5 matches nothing for it
		}
		if matched[i], err = bm.matchPhrase(c, terms[i]); err != nil {
			return nil, fmt.Errorf("phrase %s: %w", terms[i], err)
		}
		ids = append(ids, matched[i].ids...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	size, err := bm.readSizes(c, ids)
	if err != nil {
		return nil, err
	}
	ps := make([]postings[uint32], len(phrases))
	for i, toks := range phrases {
		if len(toks) == 0 {
			continue
		}
		if ps[i], err = bm.phrasePostings(c, matched[i], toks, ids); err != nil {
			return nil, fmt.Errorf("phrase %s: %w", terms[i], err)
		}
	}
	acc := make([]float64, len(ids))
	accumulate(newScorer(p, nRow, nToken), ps, size, acc, nil)
	rows := make([]scoredRow, len(ids))
	for d, id := range ids {
		rows[d] = scoredRow{id, acc[d]}
	}
	return rows, nil
}

// phrasePostings returns a matched phrase's postings over ids (the
// query's matched rows, ascending): its weighted counts read from
// fts5vocab, which must find exactly the rows FTS5 matched.
func (bm *BM25) phrasePostings(c *sqlite3.Conn, m matchedPhrase, toks []string, ids []int64) (postings[uint32], error) {
	r, err := bm.vocabRows(c, toks)
	if err != nil {
		return postings[uint32]{}, err
	}
	dense, ok := r.dense(ids)
	if !ok || !slices.Equal(r.ids, m.ids) {
		return dense, errors.New("fts5vocab and FTS5 disagree on the rows holding it")
	}
	return dense, nil
}

// phraseRows are the rows holding one phrase (FTS5 row ids, ascending)
// and its weighted count of instances in each.
type phraseRows struct {
	ids  []int64
	freq []uint32
}

// dense returns r over the positions of its rows in ids (ascending); ok
// is false when ids lacks one of them.
func (r phraseRows) dense(ids []int64) (p postings[uint32], ok bool) {
	p = postings[uint32]{rows: make([]uint32, len(r.ids)), freq: r.freq}
	d := 0
	for i, id := range r.ids {
		for d < len(ids) && ids[d] != id {
			d++
		}
		if d == len(ids) {
			return p, false
		}
		p.rows[i] = uint32(d)
	}
	return p, true
}

// matchedPhrase is the rows FTS5 matches for one phrase alone (row ids,
// ascending).
type matchedPhrase struct {
	ids []int64
}

// matchPhrase runs FTS5 on the phrase term (a quoted MatchExpr term)
// alone: the rows holding it (FTS5's own phrase semantics: tokens at
// consecutive offsets of one column).
func (bm *BM25) matchPhrase(c *sqlite3.Conn, term string) (matchedPhrase, error) {
	var m matchedPhrase
	st, err := bm.stmts.get(c, phraseRowsSQL)
	if err != nil {
		return m, err
	}
	if err := st.BindText(1, term); err != nil {
		return m, err
	}
	for st.Step() {
		m.ids = append(m.ids, st.ColumnInt64(0))
	}
	if err := errorsJoinReset(st, st.Err()); err != nil {
		return m, err
	}
	if !slices.IsSorted(m.ids) {
		return m, errors.New("FTS5 rows out of order")
	}
	return m, nil
}

// phraseRowsSQL lists the rows matching one phrase, by row id.
const phraseRowsSQL = `SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid`

// readSizes returns the size in tokens (all columns) of each row of ids.
func (bm *BM25) readSizes(c *sqlite3.Conn, ids []int64) ([]uint32, error) {
	st, err := bm.stmts.get(c, sizesSQL)
	if err != nil {
		return nil, err
	}
	if err := st.BindText(1, jsonIDs(ids)); err != nil {
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

// jsonIDs writes row ids as a JSON array, for SQL that reads them with
// json_each: one bound parameter however many ids there are.
func jsonIDs(ids []int64) string {
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
	return list.String()
}
