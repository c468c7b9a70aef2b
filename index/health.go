package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// QuickCheckBudget bounds the integrity check run on open; a check that
// does not finish in time is abandoned (the index is used as is, and
// damage found later by a query still triggers a rebuild).
const QuickCheckBudget = 3 * time.Second

// IsCorrupt reports whether err is SQLite's "database disk image is
// malformed" (any extended code of SQLITE_CORRUPT).
func IsCorrupt(err error) bool { return errors.Is(err, sqlite3.CORRUPT) }

// Healable reports whether err, met while opening the index file at
// path, is damage that Open repairs by rebuilding the file empty for the
// next sync to fill: SQLite finds it malformed or not a database at all
// (truncated, pages or header overwritten), and the file is proven an
// enquire-mcp index by its bytes, since SQLite may not read it. Every
// command that opens an index takes this one path; serve also uses it to
// decide that a damaged index at the default location is its own.
func Healable(path string, err error) bool {
	return isDamage(err) && oursOnDisk(path)
}

// isDamage reports whether err says the file's content is broken.
func isDamage(err error) bool {
	return IsCorrupt(err) || errors.Is(err, sqlite3.NOTADB)
}

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// stateMagic opens the engine state files saved next to an index
// (package search writes them: its stateMagic).
const stateMagic = "enquire-mcp engine state\n"

// oursOnDisk reports whether the file at path is an enquire-mcp index,
// read from its bytes: its SQLite header carries the application id or,
// when the header itself is destroyed, an engine state this program
// saved sits next to it (one is only ever saved next to an index that
// opened as ours). A file never proven ours is never replaced.
func oursOnDisk(path string) bool {
	var h [100]byte
	if readPrefix(path, h[:]) && string(h[:len(sqliteMagic)]) == sqliteMagic {
		if binary.BigEndian.Uint32(h[68:72]) == applicationID {
			return true
		}
	}
	m := make([]byte, len(stateMagic))
	return readPrefix(StatePath(path), m) && string(m) == stateMagic
}

// readPrefix fills b from the start of the file at path; false when the
// file is missing or shorter.
func readPrefix(path string, b []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = io.ReadFull(f, b)
	return err == nil
}

// checkFailed is damage quick_check found, in its words.
type checkFailed string

func (c checkFailed) Error() string { return string(c) }

// Is makes a failed check count as SQLITE_CORRUPT (IsCorrupt).
func (checkFailed) Is(target error) bool { return target == error(sqlite3.CORRUPT) }

// damageWhy is the one-line reason Index.Rebuilt gives for damage.
func damageWhy(err error) string {
	var c checkFailed
	switch {
	case errors.As(err, &c):
		return string(c)
	case errors.Is(err, sqlite3.NOTADB):
		return "file is not a database (its header is overwritten)"
	}
	return "database disk image is malformed"
}

// Healer rebuilds a damaged index in the background. Source lists what to
// index into fresh, the new empty index (typically fresh.DiskSource).
type Healer struct {
	Source func(ctx context.Context, fresh *Index) (Source, error)
	Logger *slog.Logger
	// Healed, if set, is called after a successful swap.
	Healed func()
}

// Health is the damage state of an open index (Index.Health): the
// corruption seen, the healer that rebuilds the file in the background,
// and the heal in progress.
type Health struct {
	ix      *Index // the index it watches
	mu      sync.Mutex
	damaged error   // the corruption seen, until a heal swaps a new file in
	healer  *Healer // nil: damage is reported with the manual fix
	healing bool
	done    chan struct{} // closed when the current heal ends
}

// SetHealer turns on automatic rebuilds: on the first SQLITE_CORRUPT a
// query or sync meets, the index is rebuilt into a new file in the
// background and swapped in; meanwhile every index call fails fast with
// the damage error, so BM25 is reported off while TF-IDF serves.
func (h *Health) SetHealer(healer Healer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.healer = &healer
}

// Damaged returns the corruption error the index is known to have, or nil.
func (h *Health) Damaged() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.damaged
}

// WaitHealed blocks until a heal in progress ends (or ctx does).
func (h *Health) WaitHealed(ctx context.Context) error {
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// noteDamage records a corruption error and starts a heal when one is
// configured; it returns err, reworded to name the fix.
func (ix *Index) noteDamage(err error) error {
	if err == nil || !IsCorrupt(err) {
		return err
	}
	h := &ix.health
	h.mu.Lock()
	defer h.mu.Unlock()
	first := h.damaged == nil
	if first {
		h.damaged = err
	}
	if h.healer == nil {
		return fmt.Errorf("index %s is damaged (%w); run `enquire-mcp index --rebuild`", ix.path, err)
	}
	if !h.healing {
		h.healing = true
		h.done = make(chan struct{})
		logger := h.healer.Logger
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		logger.Error("index damaged; rebuilding it in the background (BM25 is off meanwhile)", "file", ix.path, "err", err)
		go ix.heal(*h.healer, logger, h.done)
	}
	return fmt.Errorf("index %s is damaged (%w); it is being rebuilt in the background", ix.path, err)
}

// damagedErr is the fast failure of every call while the index is damaged.
func (ix *Index) damagedErr() error {
	h := &ix.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.damaged == nil {
		return nil
	}
	if h.healing {
		return fmt.Errorf("index %s is damaged (%w); it is being rebuilt in the background", ix.path, h.damaged)
	}
	return fmt.Errorf("index %s is damaged (%w); run `enquire-mcp index --rebuild`", ix.path, h.damaged)
}

// heal builds a new index next to the damaged one and swaps it in.
func (ix *Index) heal(h Healer, logger *slog.Logger, done chan struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // the heal stops when the index is closed
		select {
		case <-ix.closed:
			cancel()
		case <-done:
		}
	}()
	start := time.Now()
	err := ix.rebuildInto(ctx, h, ix.path+".heal")
	ix.health.mu.Lock()
	ix.health.healing = false
	if err == nil {
		ix.health.damaged = nil
	}
	ix.health.mu.Unlock()
	if err != nil {
		logger.Error("index rebuild failed; BM25 stays off until `enquire-mcp index --rebuild`", "file", ix.path, "err", err)
		return
	}
	logger.Info("index rebuilt after damage", "file", ix.path, "ms", time.Since(start).Milliseconds())
	if h.Healed != nil {
		h.Healed()
	}
}

// rebuildInto fills a new index file at tmp from the healer's source and
// renames it over the index, reopening every connection.
func (ix *Index) rebuildInto(ctx context.Context, h Healer, tmp string) error {
	fresh, err := Open(ctx, tmp, ix.settings, true)
	if err != nil {
		return err
	}
	src, err := h.Source(ctx, fresh)
	if err == nil {
		_, err = fresh.Sync(ctx, src, nil)
	}
	if err = errors.Join(err, fresh.Close()); err != nil {
		removeFiles(tmp)
		return fmt.Errorf("rebuild into %s: %w", tmp, err)
	}
	unlock, err := ix.lockSync(ctx, nil)
	if err != nil {
		removeFiles(tmp)
		return err
	}
	defer unlock()
	return ix.swap(ctx, tmp)
}

// swap closes every connection (waiting for searches in flight), renames
// tmp over the index file and reopens. A search meanwhile waits for a
// connection; none ever sees a half-written file.
func (ix *Index) swap(ctx context.Context, tmp string) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	conns := make([]*sqlite3.Conn, 0, cap(ix.readers))
	for range cap(ix.readers) {
		select {
		case c := <-ix.readers:
			conns = append(conns, c)
		case <-ix.closed:
			for _, c := range conns {
				ix.readers <- c
			}
			return fmt.Errorf("index %s: closed", ix.path)
		}
	}
	var errs []error
	for _, c := range append(conns, ix.write) {
		if c != nil {
			errs = append(errs, ix.bm25.stmts.release(c), c.Close())
		}
	}
	ix.write = nil
	for _, suffix := range []string{"-wal", "-shm"} { // the old journal must never meet the new file
		if err := os.Remove(ix.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	errs = append(errs, os.Rename(tmp, ix.path))
	removeFiles(tmp)
	errs = append(errs, prepareFile(ix.path, false))
	var err error
	if ix.write, err = openConn(ctx, ix.path); err != nil {
		errs = append(errs, err)
	}
	for range cap(ix.readers) {
		c, err := openReader(ctx, ix.path)
		errs = append(errs, err)
		ix.readers <- c // nil on failure: reader reports it; Close skips it
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("index %s: swap in rebuilt file: %w", ix.path, err)
	}
	// Another file, another instance id: the in-memory BM25 copy of the old
	// one must not be used even if the FTS5 stamps happen to agree.
	ix.bm25.idx.Store(nil)
	instance, err := readInstanceID(ix.write)
	ix.instanceID.Store(instance)
	return err
}

// removeFiles deletes a temporary index file, its journal and its lock
// file, ignoring absence.
func removeFiles(path string) {
	for _, suffix := range []string{"-wal", "-shm", "", ".lock", ".clean"} {
		os.Remove(path + suffix)
	}
}

// quickCheck runs PRAGMA quick_check within QuickCheckBudget and returns
// what is wrong ("" for a sound file or a check that ran out of time).
func (ix *Index) quickCheck(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, QuickCheckBudget)
	defer cancel()
	old := ix.write.SetInterrupt(ctx)
	defer ix.write.SetInterrupt(old)
	for _, table := range checkedTables {
		if why := quickCheckTable(ix.write, table); why != "" {
			return why
		}
	}
	return ""
}

// checkedTables are the tables quick_check walks on open: one at a time
// costs a fraction of the whole-file check (on the zettelkasten vault's
// 11 MB index about 60-150 ms against 420-850 ms), and these are every
// page a search or sync reads.
var checkedTables = []string{"meta", "files", "chunks", "fts_data", "fts_idx", "fts_content", "fts_docsize", "fts_config", "vectors"}

func quickCheckTable(c *sqlite3.Conn, table string) string {
	st, _, err := c.Prepare(`PRAGMA quick_check(` + table + `)`)
	if err != nil {
		return corruptWhy(err)
	}
	defer st.Close()
	var bad []string
	for st.Step() && len(bad) < 3 {
		if msg := st.ColumnText(0); msg != "ok" {
			bad = append(bad, msg)
		}
	}
	if err := st.Err(); err != nil {
		return corruptWhy(err)
	}
	if len(bad) > 0 {
		return fmt.Sprintf("quick_check(%s): %q", table, bad)
	}
	return ""
}

// corruptWhy describes a corruption error ("" for any other error: an
// interrupted or busy check says nothing about the file).
func corruptWhy(err error) string {
	if IsCorrupt(err) {
		return err.Error()
	}
	return ""
}

// reset replaces a damaged index file with an empty one.
func (ix *Index) reset(ctx context.Context, why string) error {
	if ix.write != nil {
		ix.write.Close()
		ix.write = nil
	}
	if err := prepareFile(ix.path, true); err != nil {
		return err
	}
	w, err := openConn(ctx, ix.path)
	if err != nil {
		return err
	}
	ix.write = w
	ix.Rebuilt = "damaged: " + why
	ix.health.mu.Lock()
	ix.health.damaged = nil // that was the old file
	ix.health.mu.Unlock()
	return ix.create()
}

// ours reports whether the file carries the enquire-mcp application id,
// so a damaged file is only ever replaced when it is an index.
func (ix *Index) ours() bool {
	appID, _, err := ix.header()
	return err == nil && appID == applicationID
}

func (ix *Index) closeWrite() error {
	if ix.write == nil {
		return nil
	}
	err := ix.write.Close()
	ix.write = nil
	return err
}
