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
// until fn returns false: BM25 descending, ties by path then chunk. An
// empty MatchExpr matches nothing.
//
// It gives exactly the rows, order and scores of the one-statement form
// (every match joined to chunks and files, then sorted; referenceSQL in
// the tests) at a fraction of its cost: FTS5 scores the matches without a
// join or a sort, Go orders them by score, and chunk and file rows are
// looked up only for the best ones, in batches that never split a group
// of equal scores (so ties are broken by path and chunk as before). The
// statements share one read transaction, so they see one snapshot.
func (ix *Index) Search(ctx context.Context, query string, limit int, fn func(Hit) bool) error {
	return ix.search(ctx, query, limit, firstBatch, fn)
}

// search is Search with the size of the first lookup batch (tests use
// tiny ones to make batches cut through tie groups).
func (ix *Index) search(ctx context.Context, query string, limit, batch int, fn func(Hit) bool) error {
	terms := matchTerms(query)
	expr := strings.Join(terms, " OR ")
	if expr == "" || limit <= 0 {
		return nil
	}
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		if !c.GetAutocommit() {
			return errors.New("read connection left inside a transaction")
		}
		tx := c.Begin()     // cannot fail outside a transaction, even interrupted
		defer tx.Rollback() // read only: nothing to keep; runs even if interrupted
		if done, err := ix.memSearch(c, terms, limit, fn); err != nil || done {
			return err // answered from memory (memstate.go)
		}
		scored, err := scoreMatches(c, expr)
		if err != nil {
			return err
		}
		return emitBest(c, scored, limit, batch, fn)
	})
	if err != nil {
		return fmt.Errorf("index search %q: %w", expr, err)
	}
	return nil
}

// scoredRow is one match: its FTS5 row id (= chunks.id) and BM25 score.
type scoredRow struct {
	id    int64
	score float64
}

// scoreSQL scores every match and nothing more: no join, no sort.
const scoreSQL = `SELECT rowid, -bm25(fts, ` + bm25Weights + `) FROM fts WHERE fts MATCH ?`

// scoreMatches returns every match by descending score.
func scoreMatches(c *sqlite3.Conn, expr string) ([]scoredRow, error) {
	st, _, err := c.Prepare(scoreSQL)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := bindAll(st, expr); err != nil {
		return nil, err
	}
	var rows []scoredRow
	for st.Step() {
		rows = append(rows, scoredRow{st.ColumnInt64(0), st.ColumnFloat(1)})
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	sortRows(rows)
	return rows, nil
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
