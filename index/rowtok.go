package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// rowTokenizer gives the terms of rows of the index as FTS5 indexed them,
// with FTS5 itself: a private in-memory database holds a table of the
// index's columns and tokenizer, the rows' texts (read from the index) are
// inserted there, and their instances read back through fts5vocab, in
// the same way the copy's build reads the index's (readPostings). Each
// row's instance count per column is checked against the index's docsize
// record, so a row tokenized differently is an error, never a wrong score.
type rowTokenizer struct {
	conn          *sqlite3.Conn
	ins, sel, del *sqlite3.Stmt
}

// rowTextSQL reads a row's texts from the index.
var rowTextSQL = "SELECT " + ftsColumns + " FROM fts WHERE rowid = ?"

// newRowTokenizer opens the private database for tokenizer (the index's
// tokenize= value).
func newRowTokenizer(ctx context.Context, tokenizer string) (*rowTokenizer, error) {
	c, err := sqlite3.OpenContext(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	err = errors.Join(registerFTS(c), c.Exec(fmt.Sprintf(`CREATE VIRTUAL TABLE fts USING fts5(%s, tokenize=%q);
		CREATE VIRTUAL TABLE v USING fts5vocab(fts, instance);`, ftsColumns, tokenizer)))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("row tokenizer: %w", err)
	}
	r := &rowTokenizer{conn: c}
	for _, p := range []struct {
		st  **sqlite3.Stmt
		sql string
	}{
		{&r.ins, ftsInsert},
		{&r.sel, `SELECT term, doc, col FROM v`},
		{&r.del, `DELETE FROM fts`},
	} {
		if *p.st, _, err = c.Prepare(p.sql); err != nil {
			return nil, errors.Join(fmt.Errorf("row tokenizer: %w", err), r.close())
		}
	}
	return r, nil
}

// terms fills in each row's terms (rows in ascending id order), reading
// its texts from the index through c.
func (r *rowTokenizer) terms(c *sqlite3.Conn, rows []addedRow) (err error) {
	text, _, err := c.Prepare(rowTextSQL)
	if err != nil {
		return err
	}
	defer text.Close()
	defer func() { err = errors.Join(err, r.del.Exec()) }()
	for _, row := range rows {
		if err := copyRowText(text, r.ins, row.id); err != nil {
			return err
		}
	}
	byID := make(map[int64]int, len(rows))
	for i, row := range rows {
		byID[row.id] = i
	}
	freq := make([]map[string]uint32, len(rows))
	count := make([]uint64, len(rows))
	for r.sel.Step() {
		i, ok := byID[r.sel.ColumnInt64(1)]
		w, _, known := columnWeight(r.sel.ColumnText(2))
		if !ok || !known {
			return errors.Join(errors.New("row tokenizer: unknown row or column"), r.sel.Reset())
		}
		if freq[i] == nil {
			freq[i] = map[string]uint32{}
		}
		freq[i][r.sel.ColumnText(0)] += w
		count[i]++
	}
	if err := errors.Join(r.sel.Err(), r.sel.Reset()); err != nil {
		return err
	}
	for i := range rows {
		if count[i] != uint64(rows[i].size) {
			return fmt.Errorf("row %d: %d tokens here, %d in the index", rows[i].id, count[i], rows[i].size)
		}
		toks := make([]termFreq, 0, len(freq[i]))
		for t, f := range freq[i] {
			if f > math.MaxUint16 {
				return fmt.Errorf("term %q weighs over %d in row %d", t, math.MaxUint16, rows[i].id)
			}
			toks = append(toks, termFreq{t, uint16(f)})
		}
		slices.SortFunc(toks, func(a, b termFreq) int { return strings.Compare(a.term, b.term) })
		rows[i].toks = toks
	}
	return nil
}

// copyRowText copies row id's texts from the index (text: rowTextSQL) into
// the private table (ins).
func copyRowText(text, ins *sqlite3.Stmt, id int64) error {
	if err := errors.Join(text.Reset(), text.BindInt64(1, id)); err != nil {
		return err
	}
	if !text.Step() {
		return errors.Join(fmt.Errorf("row %d has no text", id), text.Err(), text.Reset())
	}
	err := errors.Join(ins.Reset(), ins.BindInt64(1, id))
	for col := range 6 {
		err = errors.Join(err, ins.BindText(col+2, text.ColumnText(col)))
	}
	return errors.Join(err, text.Reset(), ins.Exec())
}

// close closes the statements and the private database.
func (r *rowTokenizer) close() error {
	var errs []error
	for _, st := range []*sqlite3.Stmt{r.ins, r.sel, r.del} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, r.conn.Close())...)
}
