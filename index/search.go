package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// Search streams up to limit chunks matching query to fn, best first,
// until fn returns false: BM25 under p descending, ties by path then
// chunk. An empty MatchExpr matches nothing.
//
// The rows are those FTS5 matches for MatchExpr(query), scored as
// FTS5's bm25() scores them but with p's k1 and b (bm25() hard-codes
// 1.2 and 0.75): from the in-memory copy when it matches the snapshot
// and every phrase is one token (bm25state.go), else from postings read
// for this query (bm25read.go). Both score with the same code, so they
// give the same hits and scores. Chunk and file rows are looked up only
// for the best rows, in batches that never split a group of equal scores
// (so ties are broken by path and chunk). The reads share one read
// transaction, so they see one snapshot.
func (bm *BM25) Search(ctx context.Context, query string, limit int, p BM25Params, fn func(Hit) bool) error {
	return bm.search(ctx, query, limit, firstBatch, p, fn)
}

// search is Search with the size of the first lookup batch (tests use
// tiny ones to make batches cut through tie groups).
func (bm *BM25) search(ctx context.Context, query string, limit, batch int, p BM25Params, fn func(Hit) bool) error {
	terms := matchTerms(query)
	expr := strings.Join(terms, " OR ")
	if err := p.validate(); err != nil {
		return fmt.Errorf("index search %q: %w", expr, err)
	}
	if expr == "" || limit <= 0 {
		return nil
	}
	tok, err := bm.tokenizer()
	if err != nil {
		return fmt.Errorf("index search %q: %w", expr, err)
	}
	phrases, single, err := tok.phrases(terms)
	if err != nil {
		return fmt.Errorf("index search %q: tokenize: %w", expr, err)
	}
	err = bm.ix.reader(ctx, func(c *sqlite3.Conn) error {
		if !c.GetAutocommit() {
			return errors.New("read connection left inside a transaction")
		}
		if err := bm.stmts.setup(c, vocabSetup); err != nil {
			return err
		}
		tx := c.Begin()     // cannot fail outside a transaction, even interrupted
		defer tx.Rollback() // read only: nothing to keep; runs even if interrupted
		if done, err := bm.copySearch(c, p, phrases, single, limit, fn); err != nil || done {
			return err // answered from memory (bm25state.go)
		}
		scored, err := bm.readScores(c, p, terms, phrases)
		if err != nil {
			return err
		}
		sortRows(scored)
		return emitBest(c, scored, limit, batch, fn)
	})
	if err != nil {
		return fmt.Errorf("index search %q: %w", expr, err)
	}
	return nil
}

// scoredRow is one match: its FTS5 row id (= chunks.id; a dense row
// number inside the in-memory copy) and BM25 score.
type scoredRow struct {
	id    int64
	score float64
}

// sortRows orders rows by descending score.
func sortRows(rows []scoredRow) {
	slices.SortFunc(rows, func(a, b scoredRow) int { return cmp.Compare(b.score, a.score) })
}

// rowsSQL reads the chunk and file rows of a list of row ids.
const rowsSQL = `SELECT c.id, c.path, c.idx, c.page, c.line_start, c.line_end, f.hash
	FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value CROSS JOIN files f ON f.path = c.path`

// firstBatch is how many of the best rows are looked up first; later
// batches double. A note-level BM25 ranking of 100 notes reads ~150 rows.
const firstBatch = 128

// emitBest looks up the rows of scored (by descending score) batch by
// batch and passes them to fn in the final order until limit rows were
// passed or fn returns false. A match without a chunk or file row (which
// the join of the one-statement form drops) is dropped.
func emitBest(c *sqlite3.Conn, scored []scoredRow, limit, batch int, fn func(Hit) bool) error {
	st, _, err := c.Prepare(rowsSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	emitted := 0
	for i := 0; i < len(scored); batch *= 2 {
		j := min(len(scored), i+batch)
		for j < len(scored) && scored[j].score == scored[j-1].score {
			j++ // never split a tie group
		}
		hits, err := lookup(st, scored[i:j])
		if err != nil {
			return err
		}
		for _, h := range hits {
			if emitted == limit || !fn(h) {
				return nil
			}
			emitted++
		}
		i = j
	}
	return nil
}

// lookup reads the rows of part (descending scores, whole tie groups) and
// returns them as hits in the final order: score, then path, then chunk.
func lookup(st *sqlite3.Stmt, part []scoredRow) ([]Hit, error) {
	var ids strings.Builder
	ids.WriteByte('[')
	score := make(map[int64]float64, len(part))
	for k, r := range part {
		if k > 0 {
			ids.WriteByte(',')
		}
		ids.WriteString(strconv.FormatInt(r.id, 10))
		score[r.id] = r.score
	}
	ids.WriteByte(']')
	if err := st.Reset(); err != nil {
		return nil, err
	}
	if err := bindAll(st, ids.String()); err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(part))
	for st.Step() {
		hits = append(hits, Hit{Score: score[st.ColumnInt64(0)], Path: st.ColumnText(1), Chunk: st.ColumnInt(2), Page: st.ColumnInt(3),
			LineStart: st.ColumnInt(4), LineEnd: st.ColumnInt(5), FileHash: st.ColumnText(6)})
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Path, b.Path), cmp.Compare(a.Chunk, b.Chunk))
	})
	return hits, nil
}
