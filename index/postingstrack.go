package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncruces/go-sqlite3"
)

// copyTx records what one write transaction changes in FTS5, so that the
// in-memory copy can follow it (postingsdelta.go). The sync writer reports each
// file whose rows it deletes (before the delete) and each row it inserts.
// It is used under Index.writeMu only.
type copyTx struct {
	state   copyTxState
	base    *postingsCopy // the copy the transaction started from
	removed []int64
	added   []int64
}

type copyTxState int

const (
	txIdle     copyTxState = iota // no FTS5 change reported yet
	txTracking                    // changes recorded on top of base
	txOff                         // the copy cannot follow: it goes stale
)

// begin readies the record for a new transaction.
func (t *copyTx) begin() {
	*t = copyTx{removed: t.removed[:0], added: t.added[:0]}
}

// start is called before the transaction's first FTS5 change: the copy
// can follow only if it is current for the snapshot c writes to.
func (bm *BM25) start(c *sqlite3.Conn) {
	t := &bm.tx
	if t.state != txIdle {
		return
	}
	t.state = txOff
	m := bm.idx.Load()
	if m == nil || bm.off || bm.noDelta {
		return
	}
	stamp, err := readStamp(c)
	if err != nil || stamp != m.stamp {
		return
	}
	t.state, t.base = txTracking, m
}

// deleting records the rows of path, which the writer is about to
// delete (st: SELECT id FROM chunks WHERE path = ?). A failed read only
// stops the copy from following the transaction.
func (bm *BM25) deleting(c *sqlite3.Conn, st *sqlite3.Stmt, path string) {
	bm.start(c)
	if bm.tx.state != txTracking {
		return
	}
	if err := errors.Join(st.Reset(), st.ClearBindings(), st.BindText(1, path)); err != nil {
		bm.tx.state = txOff
		return
	}
	for st.Step() {
		bm.tx.removed = append(bm.tx.removed, st.ColumnInt64(0))
	}
	if err := errors.Join(st.Err(), st.Reset()); err != nil {
		bm.tx.state = txOff
	}
}

// inserted records a row the writer inserted (it called start before).
func (bm *BM25) inserted(id int64) {
	if bm.tx.state == txTracking {
		bm.tx.added = append(bm.tx.added, id)
	}
}

// prepare computes, inside the transaction (after its writes, before the
// commit), the copy that follows it; nil when the copy cannot follow (it
// then goes stale, as before: searches read SQLite until it is rebuilt).
// It never fails the transaction.
func (bm *BM25) prepareCopy(c *sqlite3.Conn) *postingsCopy {
	t := bm.tx
	if t.state != txTracking || (len(t.removed) == 0 && len(t.added) == 0) {
		return nil
	}
	limit := t.base.overlayLimit(cmp.Or(bm.overlayMin, copyOverlayMin))
	if t.base.overlayFull(len(t.added), len(t.removed), limit) {
		return nil // a large sync: rebuilt when quiet, not tokenized twice
	}
	ch, err := bm.readChange(c, t.removed, t.added)
	if err != nil {
		return nil
	}
	next, err := t.base.apply(ch, limit)
	if err != nil {
		return nil
	}
	return next
}

// publish makes next the copy searches use, keeping the one before for
// searches whose snapshot predates the commit.
func (bm *BM25) publish(next *postingsCopy) {
	if next == nil {
		return
	}
	bm.prev.Store(bm.idx.Swap(next))
}

// readChange reads, inside the write transaction, the stamp and averages
// after it and the added rows (chunk, file, size and terms). FTS5 holds
// recent inserts in memory until the transaction commits or a savepoint
// opens; the savepoint here writes them out, so that the records read are
// those the commit leaves.
func (bm *BM25) readChange(c *sqlite3.Conn, removed, added []int64) (copyChange, error) {
	ch := copyChange{removed: removed}
	if err := c.Exec(`SAVEPOINT memflush; RELEASE memflush`); err != nil {
		return ch, err
	}
	var err error
	if ch.stamp, err = readStamp(c); err != nil {
		return ch, err
	}
	st, _, err := c.Prepare(averagesSQL)
	if err != nil {
		return ch, err
	}
	ch.nRow, ch.nToken, err = stepAverages(st)
	if err = errors.Join(err, st.Close()); err != nil {
		return ch, err
	}
	if len(added) == 0 {
		return ch, nil
	}
	if ch.added, err = readAdded(c, added); err != nil {
		return ch, err
	}
	tok, err := bm.rowTokenizer(bm.ix.settings.Tokenizer)
	if err != nil {
		return ch, err
	}
	return ch, tok.terms(c, ch.added)
}

// addedSQL reads an added row's chunk, file and per-column sizes.
const addedSQL = `SELECT c.id, c.path, c.idx, c.page, c.line_start, c.line_end, f.hash, d.sz
	FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value CROSS JOIN files f ON f.path = c.path
	CROSS JOIN fts_docsize d ON d.id = c.id ORDER BY c.id`

// readAdded reads the rows ids (in row id order); sizes come from FTS5's
// docsize table, and every id must have its chunk, file and docsize rows.
func readAdded(c *sqlite3.Conn, ids []int64) ([]addedRow, error) {
	st, _, err := c.Prepare(addedSQL)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := st.BindText(1, jsonIDs(ids)); err != nil {
		return nil, err
	}
	var rows []addedRow
	for st.Step() {
		sz, err := varints(st.ColumnRawBlob(7))
		if err != nil {
			return nil, err
		}
		var n uint64
		for _, v := range sz {
			n += v
		}
		if n > math.MaxUint32 {
			return nil, errors.New("row too large")
		}
		rows = append(rows, addedRow{id: st.ColumnInt64(0), path: st.ColumnText(1), hash: st.ColumnText(6), size: uint32(n),
			row: copyRow{idx: int32(st.ColumnInt(2)), page: int32(st.ColumnInt(3)), lineStart: int32(st.ColumnInt(4)), lineEnd: int32(st.ColumnInt(5))}})
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	if len(rows) != len(ids) {
		return nil, fmt.Errorf("%d of %d added rows found", len(rows), len(ids))
	}
	return rows, nil
}

// rowTokenizer returns the tokenizer of added rows, opening it on first
// use (under Index.writeMu).
func (bm *BM25) rowTokenizer(tokenizer string) (*rowTokenizer, error) {
	if bm.rowTok == nil {
		t, err := newRowTokenizer(context.Background(), tokenizer)
		if err != nil {
			return nil, err
		}
		bm.rowTok = t
	}
	return bm.rowTok, nil
}

// closeRowTokenizer closes it (under Index.writeMu, at Close).
func (bm *BM25) closeRowTokenizer() error {
	if bm.rowTok == nil {
		return nil
	}
	err := bm.rowTok.close()
	bm.rowTok = nil
	return err
}
