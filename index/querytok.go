package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ncruces/go-sqlite3"
)

// tokenCacheMax bounds the tokenizer's cache of words (it is emptied when
// full): a query's words repeat across queries, SQLite is only asked about
// new ones.
const tokenCacheMax = 1 << 15

// queryTokenizer turns MatchExpr's terms into FTS5's tokens with FTS5
// itself: a private in-memory database holds a one-column FTS5 table with
// the index's tokenizer, and a word's tokens are read back through
// fts5vocab after inserting it.
//
// FTS5's tokenizer is the tokenizer of record, on purpose. The postings
// copy looks query tokens up among the tokens FTS5 stored, so a query
// word must become exactly the tokens FTS5 made of the same word in a
// note, or the copy would score differently from the SQLite reads
// (readScores) and from FTS5's own MATCH. Asking FTS5 guarantees that for
// any tokenize= setting (Settings.Tokenizer is stored with the index),
// with no copy in Go of unicode61's folding and separator tables (tied to
// SQLite's Unicode version) or of SQLite's porter stemmer (which is not
// the Snowball English stemmer package analysis uses). The cost is one
// insert per word never seen before; the cache makes a repeated word free.
type queryTokenizer struct {
	mu    sync.Mutex
	conn  *sqlite3.Conn
	cache map[string][]string // term text → its tokens, in order
	// ins, sel and del insert a word, read its tokens back and empty the
	// table: prepared once (compiling them for every new word cost more
	// than running them).
	ins, sel, del *sqlite3.Stmt
}

// newQueryTokenizer opens the private database for tokenizer (an FTS5
// tokenize= value, as the index's table uses).
func newQueryTokenizer(ctx context.Context, tokenizer string) (*queryTokenizer, error) {
	c, err := sqlite3.OpenContext(ctx, ":memory:")
	if err != nil {
		return nil, err
	}
	err = errors.Join(registerFTS(c), c.Exec(fmt.Sprintf(`CREATE VIRTUAL TABLE q USING fts5(x, tokenize=%q);
		CREATE VIRTUAL TABLE qv USING fts5vocab(q, instance);`, tokenizer)))
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("query tokenizer: %w", err)
	}
	q := &queryTokenizer{conn: c, cache: map[string][]string{}}
	for _, p := range []struct {
		st  **sqlite3.Stmt
		sql string
	}{{&q.ins, `INSERT INTO q(rowid, x) VALUES (1, ?)`}, {&q.sel, `SELECT term FROM qv ORDER BY offset`}, {&q.del, `DELETE FROM q`}} {
		if *p.st, _, err = c.Prepare(p.sql); err != nil {
			return nil, errors.Join(fmt.Errorf("query tokenizer: %w", err), q.close())
		}
	}
	return q, nil
}

// phrases returns the tokens of each of MatchExpr's terms, in order: one
// for most words, several for a "quoted phrase" or a word FTS5 splits,
// none for a word FTS5 drops. single reports whether every term is
// exactly one token (what the in-memory copy can score).
func (q *queryTokenizer) phrases(terms []string) (toks [][]string, single bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([][]string, 0, len(terms))
	single = true
	for _, t := range terms {
		text := strings.Trim(t, `"`)
		toks, ok := q.cache[text]
		if !ok {
			var err error
			if toks, err = q.tokenize(text); err != nil {
				return nil, false, err
			}
			if len(q.cache) >= tokenCacheMax {
				clear(q.cache)
			}
			q.cache[text] = toks
		}
		single = single && len(toks) == 1
		out = append(out, toks)
	}
	return out, single, nil
}

// tokenize asks FTS5 for text's tokens, in order.
func (q *queryTokenizer) tokenize(text string) ([]string, error) {
	if err := errors.Join(q.ins.BindText(1, text), q.ins.Exec()); err != nil {
		return nil, err
	}
	var toks []string
	for q.sel.Step() {
		toks = append(toks, q.sel.ColumnText(0))
	}
	if err := errors.Join(q.sel.Err(), q.sel.Reset(), q.del.Exec()); err != nil {
		return nil, err
	}
	return toks, nil
}

// close closes the statements and the private database.
func (q *queryTokenizer) close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	for _, st := range []*sqlite3.Stmt{q.ins, q.sel, q.del} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, q.conn.Close())...)
}
