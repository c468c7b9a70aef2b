package index

import (
	"errors"
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
// k1 and b, so it no longer ranks: it only serves to solve each row's
// count (solveCounts), and the tests keep it as the reference. The
// fts5vocab reads that replace it when a count is not solved are in
// bm25vocab.go.

// vocabSetup makes the fts5vocab table the reads go through (a temp
// table: per connection, no write to the index). Search runs it before
// its read transaction begins (a rollback would drop the table).
const vocabSetup = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.memvocab USING fts5vocab(main, fts, instance)`

// sizesSQL reads the docsize record of a list of row ids.
const sizesSQL = `SELECT j.value, d.sz FROM json_each(?) j CROSS JOIN fts_docsize d ON d.id = j.value`

// readScores scores every row holding one of phrases (each the tokens of
// one of the query's terms, in order; terms are MatchExpr's quoted terms)
// by BM25 under p, reading from the snapshot c reads the averages record,
// each phrase's rows with its weighted count in each (matchPhrase and
// solveCounts, else fts5vocab), and the matched rows' sizes. Rows are
// returned by FTS5 row id.
func (ix *Index) readScores(c *sqlite3.Conn, p BM25Params, terms []string, phrases [][]string) ([]scoredRow, error) {
	st, err := ix.mem.stmts.get(c, averagesSQL)
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
		if matched[i], err = ix.matchPhrase(c, terms[i]); err != nil {
			return nil, fmt.Errorf("phrase %s: %w", terms[i], err)
		}
		ids = append(ids, matched[i].ids...)
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
	ps := make([]postings[uint32], len(phrases))
	for i, toks := range phrases {
		if len(toks) == 0 {
			continue
		}
		if ps[i], err = ix.phrasePostings(c, newBM25(BM25Params{K1: fts5K1, B: fts5B}, nRow, nToken), matched[i], toks, ids, size); err != nil {
			return nil, fmt.Errorf("phrase %s: %w", terms[i], err)
		}
	}
	acc := make([]float64, len(ids))
	accumulate(newBM25(p, nRow, nToken), ps, size, acc, nil)
	rows := make([]scoredRow, len(ids))
	for d, id := range ids {
		rows[d] = scoredRow{id, acc[d]}
	}
	return rows, nil
}

// phrasePostings returns a matched phrase's postings over ids (the
// query's matched rows, ascending, of the given sizes): the counts solved
// from bm25() (s: at FTS5's k1 and b), else read from fts5vocab.
func (ix *Index) phrasePostings(c *sqlite3.Conn, s bm25, m matchedPhrase, toks []string, ids []int64, size []uint32) (postings[uint32], error) {
	dense, ok := phraseRows{ids: m.ids}.dense(ids)
	if !ok {
		return dense, errors.New("a matched row is missing from the query's rows")
	}
	if dense.freq, ok = solveCounts(s, m.score, dense.rows, size); ok {
		return dense, nil
	}
	r, err := ix.vocabRows(c, toks)
	if err != nil {
		return dense, err
	}
	if dense, ok = r.dense(ids); !ok || !slices.Equal(r.ids, m.ids) {
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
// ascending) with the score bm25() gives each.
type matchedPhrase struct {
	ids   []int64
	score []float64
}

// matchPhrase runs FTS5 on the phrase term (a quoted MatchExpr term)
// alone: the rows holding it (FTS5's own phrase semantics: tokens at
// consecutive offsets of one column) and their bm25() scores.
func (ix *Index) matchPhrase(c *sqlite3.Conn, term string) (matchedPhrase, error) {
	var m matchedPhrase
	st, err := ix.mem.stmts.get(c, fts5PhraseSQL())
	if err != nil {
		return m, err
	}
	if err := st.BindText(1, term); err != nil {
		return m, err
	}
	for st.Step() {
		m.ids = append(m.ids, st.ColumnInt64(0))
		m.score = append(m.score, st.ColumnFloat(1))
	}
	if err := errorsJoinReset(st, st.Err()); err != nil {
		return m, err
	}
	if !slices.IsSorted(m.ids) {
		return m, errors.New("FTS5 rows out of order")
	}
	return m, nil
}

// solveCounts returns the phrase's weighted count f in each of its rows
// (rows: dense numbers into size), reading no instance: bm25() scored
// each row (score) at FTS5's k1 and b (s), and its other inputs (the
// phrase's idf, the row's size, the mean size) are known, so
// s = idf·f·(k1+1)/(f + K) gives f = s·K/(idf·(k1+1) − s). Stepping through
// the tokens' rows or instances in fts5vocab instead cost two to ten
// times FTS5's own query on common words (BenchmarkFallbackScore). f is a
// sum of integer weights, so the solution is rounded; ok is false (the
// caller reads fts5vocab: tokenRows, phraseInstances) when one is not
// within 1e-6 of an integer. The error of f is about 1e-16·(f+K)/K
// relative (K ≥ 0.3, f a few thousand at most), far below that bound;
// TestPostingsAgree checks the reads give the same postings.
func solveCounts(s bm25, score []float64, rows []uint32, size []uint32) ([]uint32, bool) {
	idf := s.idf(int64(len(rows)))
	freq := make([]uint32, len(rows))
	for i, sc := range score {
		k := s.k1 * (1 - s.b + s.b*float64(size[rows[i]])/s.avgdl)
		f := sc * k / (idf*(s.k1+1) - sc)
		n := math.Round(f)
		if !(math.Abs(f-n) < 1e-6) || n < 1 || n > math.MaxUint32 {
			return nil, false
		}
		freq[i] = uint32(n)
	}
	return freq, true
}

// fts5K1 and fts5B are the k1 and b FTS5's bm25() hard-codes
// (fts5_aux.c), with which solveCounts inverts its scores.
const fts5K1, fts5B = 1.2, 0.75

// fts5PhraseSQL scores the rows matching one phrase with FTS5's bm25()
// and the index's column weights, by row id.
func fts5PhraseSQL() string {
	w := make([]string, len(columnWeights))
	for i, c := range columnWeights {
		w[i] = fmt.Sprintf("%d.0", c.weight)
	}
	return `SELECT rowid, -bm25(fts, ` + strings.Join(w, ", ") + `) FROM fts WHERE fts MATCH ? ORDER BY rowid`
}

// readSizes returns the size in tokens (all columns) of each row of ids.
func (ix *Index) readSizes(c *sqlite3.Conn, ids []int64) ([]uint32, error) {
	st, err := ix.mem.stmts.get(c, sizesSQL)
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
