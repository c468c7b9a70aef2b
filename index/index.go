// Package index is the persistent, incremental full-text index of a vault:
// one SQLite file (pure Go, FTS5) per vault in the user cache dir, holding
// every chunk of every note (and PDF) with BM25-ready columns, plus what
// is needed to resync cheaply: each file's size, modification time and
// content hash. It never writes into the vault.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/enquire-mcp/enquire-mcp/chunk"
)

// SchemaVersion changes whenever the tables change; an index with another
// version is rebuilt. Version 3 stores the FTS5 text: a contentless table
// with contentless_delete never lowers its row count on delete, so BM25's
// idf drifted with every edit away from what a fresh index gives.
// Version 4 caches the OCR text of scanned PDFs by content hash (table
// ocr) and records per file the pages without a text layer and the OCR
// settings they were read with. Version 5 gives the CJK grams of titles,
// aliases and headings their own columns (BM25 weighs them as fields).
const SchemaVersion = 5

// applicationID marks enquire-mcp index files ("ENQ1"), so a foreign
// SQLite file is never read as an index nor overwritten.
const applicationID = 0x454E5131

// Tokenizer is the FTS5 tokenizer of every text column.
const Tokenizer = "porter unicode61 remove_diacritics 2"

// Settings shape the index: a change rebuilds it.
type Settings struct {
	Tokenizer string        `json:"tokenizer"`
	Chunk     chunk.Options `json:"chunk"`
	PDFs      bool          `json:"pdfs"`
	Vault     string        `json:"vault"` // real path of the vault
}

// NewSettings returns the settings for a vault root with the default
// tokenizer and chunking.
func NewSettings(vaultRoot string, pdfs bool, c chunk.Options) Settings {
	if c == (chunk.Options{}) {
		c = chunk.DefaultOptions
	}
	return Settings{Tokenizer: Tokenizer, Chunk: c, PDFs: pdfs, Vault: vaultRoot}
}

// ErrForeign is returned for a file that is not an enquire-mcp index.
var ErrForeign = errors.New("not an enquire-mcp index")

// Index is an open index file: the store (connections, files and chunks,
// sync, settings and meta). Its parts hold one job each: BM25 (search
// and the in-memory postings copy), Vectors (chunk embeddings) and Health
// (damage and healing). Searches may run concurrently; syncs are
// serialised.
type Index struct {
	path     string
	settings Settings
	// Rebuilt says why the index was emptied on open ("" if it was not).
	Rebuilt string

	writeMu   sync.Mutex
	write     *sqlite3.Conn
	readers   chan *sqlite3.Conn
	closed    chan struct{}
	closeOnce sync.Once

	health   Health // damage and healing (health.go)
	bm25     BM25   // BM25 search and its postings copy (bm25state.go)
	lockWait func(lockFile string)
	created  bool // the file was empty on open
	// pristine: the file was empty on open and no sync has started
	// since, so its first sync deletes nothing and leaves no hidden text
	// behind to scrub (settlePrivacy).
	pristine   atomic.Bool
	instanceID atomic.Value // string: the index's instance id (instanceid.go)
	vectors    Vectors      // chunk embeddings (vectors.go)
	// opened: Open finished, so a clean close may stamp the file as
	// sound (cleanstamp.go).
	opened bool
}

// DefaultPath is the index file of a vault: the user cache dir,
// enquire-mcp, and a hash of the vault's real path.
func DefaultPath(vaultRoot string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("index: no user cache dir (use --index-file): %w", err)
	}
	sum := sha256.Sum256([]byte(vaultRoot))
	return filepath.Join(dir, "enquire-mcp", hex.EncodeToString(sum[:8])+".db"), nil
}

// Open opens (creating if needed) the index at path for the given
// settings. An index of another schema version, other settings or another
// vault is rebuilt (Index.Rebuilt says why), as is any index when rebuild
// is set. A damaged index (truncated, pages or header overwritten, found
// by SQLite or by quick_check) is rebuilt empty, Rebuilt saying
// "damaged: …", once Healable proves it ours. A foreign SQLite file gives
// ErrForeign; any other file that is not a database is an error unless
// rebuild is set (then it is replaced).
func Open(ctx context.Context, path string, s Settings, rebuild bool) (*Index, error) {
	return OpenWait(ctx, path, s, rebuild, nil)
}

// OpenWait is Open, calling wait (if set) with the lock file's path when
// another process holds the index (syncing it) and Open has to wait; the
// index's later syncs report waits to it too.
func OpenWait(ctx context.Context, path string, s Settings, rebuild bool, wait func(lockFile string)) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	ix := newIndex(path, s)
	ix.lockWait = wait
	// Opening may create or reset the file: one process at a time.
	unlock, err := ix.lockSync(ctx, wait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := prepareFile(path, rebuild); err != nil {
		return nil, err
	}
	// Read before any connection: opening one may start a journal.
	clean := !rebuild && cleanSinceClose(path)
	if err := ix.openChecked(ctx, rebuild, clean); err != nil {
		if !Healable(path, err) && !(isDamage(err) && ix.write != nil && ix.ours()) {
			return nil, errors.Join(err, ix.closeWrite())
		}
		if err := ix.reset(ctx, damageWhy(err)); err != nil {
			return nil, errors.Join(err, ix.closeWrite())
		}
		ix.loadInstanceID()
		ix.vectors.loadVectorTriggers()
	}
	for i := range cap(ix.readers) {
		r, err := openReader(ctx, path)
		if err != nil {
			for range cap(ix.readers) - i {
				ix.readers <- nil // Close takes every slot back
			}
			ix.Close()
			return nil, err
		}
		ix.readers <- r
	}
	ix.opened = true
	return ix, nil
}

// newIndex returns an Index of the file at path with no connection yet,
// its parts (BM25, Vectors, Health) pointing back at it.
func newIndex(path string, s Settings) *Index {
	ix := &Index{path: path, settings: s, readers: make(chan *sqlite3.Conn, 2), closed: make(chan struct{})}
	ix.bm25.ix, ix.vectors.ix, ix.health.ix = ix, ix, ix
	return ix
}

// openChecked opens the write connection and checks the file: its
// identity, schema and settings, then SQLite's quick_check unless the
// file is unchanged since a clean close (clean). Damage met on the way,
// even while the file is only being opened, comes back as an error
// Healable accepts.
func (ix *Index) openChecked(ctx context.Context, rebuild, clean bool) error {
	w, err := openConn(ctx, ix.path)
	if err != nil {
		return err
	}
	ix.write = w
	if err := ix.checkSchema(rebuild); err != nil {
		return err
	}
	if ix.Rebuilt == "" && !ix.created && !clean {
		if why := ix.quickCheck(ctx); why != "" {
			return checkFailed(why)
		}
	}
	ix.loadInstanceID()
	ix.vectors.loadVectorTriggers()
	return ix.health.Damaged() // a write above met damage the check did not see
}

// prepareFile creates the folder (0700) and the files (0600) so that the
// index is readable by its owner only.
func prepareFile(path string, rebuild bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("index %s: %w", path, err)
	}
	if rebuild {
		for _, suffix := range []string{"-wal", "-shm", ""} { // the journal first: a stale WAL must never meet a new file
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("index %s: %w", path, err)
			}
		}
	}
	// SQLite's VFS makes -shm with the umask's mode; an existing empty file
	// keeps ours (an empty -wal and -shm are valid).
	for _, suffix := range []string{"", "-shm"} {
		f, err := os.OpenFile(path+suffix, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("index %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("index %s: %w", path, err)
		}
	}
	return nil
}

func openConn(ctx context.Context, path string) (*sqlite3.Conn, error) {
	// modeof gives the -wal and -shm files the main file's 0600 mode.
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	uri := (&url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(abs), RawQuery: "modeof=" + url.QueryEscape(abs)}).String()
	// Setting WAL mode meets SQLITE_BUSY without calling the busy handler
	// while another process closes its last connection (it checkpoints
	// and removes the WAL then): retry that for as long as a busy wait.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := sqlite3.OpenContext(ctx, uri)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", path, err)
		}
		// secure_delete zeroes deleted content, so text the privacy rules
		// purge is not left in free pages (VACUUM then drops those pages).
		err = errors.Join(
			registerFTS(c),
			c.BusyTimeout(10e9),
			c.Exec(`PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY; PRAGMA secure_delete=ON`),
		)
		if err == nil {
			return c, nil
		}
		c.Close()
		if !errors.Is(err, sqlite3.BUSY) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("index %s: %w", path, describe(err))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func registerFTS(c *sqlite3.Conn) error { return fts5.Register(c) }

// readerCacheKiB is each read connection's page cache. SQLite's default
// (2 MiB) is well below a large vault's FTS5 index, so a BM25 search read
// the same doclist and docsize pages from the OS again and again; the
// cache only holds pages a search touched.
const readerCacheKiB = 8 << 10

// openReader opens a read connection (searches, listings).
func openReader(ctx context.Context, path string) (*sqlite3.Conn, error) {
	c, err := openConn(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := c.Exec(fmt.Sprintf(`PRAGMA cache_size = -%d`, readerCacheKiB)); err != nil {
		c.Close()
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return c, nil
}

// describe turns SQLite's "file is not a database" into advice.
func describe(err error) error {
	if errors.Is(err, sqlite3.NOTADB) {
		return fmt.Errorf("%w: the file is not an SQLite database (damaged, or not an index); rerun with --rebuild to replace it", err)
	}
	return err
}

// checkSchema validates the file's identity, version and settings, and
// (re)creates the schema when needed.
func (ix *Index) checkSchema(rebuild bool) error {
	appID, version, err := ix.header()
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.path, describe(err))
	}
	empty, err := ix.isEmpty()
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.path, err)
	}
	switch {
	case empty:
		ix.created = true
		ix.pristine.Store(true)
		return ix.create()
	case appID != applicationID:
		return fmt.Errorf("index %s: %w (application id %#x); pass another --index-file", ix.path, ErrForeign, appID)
	case rebuild:
		ix.Rebuilt = "--rebuild"
	case version != SchemaVersion:
		ix.Rebuilt = fmt.Sprintf("schema version %d → %d", version, SchemaVersion)
	default:
		stored, err := ix.storedSettings()
		if err != nil {
			ix.Rebuilt = "unreadable settings (" + err.Error() + ")"
		} else if why := settingsChange(stored, ix.settings); why != "" {
			ix.Rebuilt = why
		}
	}
	if ix.Rebuilt == "" {
		return nil
	}
	return ix.create()
}

func (ix *Index) header() (appID, version int, err error) {
	for _, q := range []struct {
		sql string
		dst *int
	}{{"PRAGMA application_id", &appID}, {"PRAGMA user_version", &version}} {
		st, _, err := ix.write.Prepare(q.sql)
		if err != nil {
			return 0, 0, err
		}
		if st.Step() {
			*q.dst = st.ColumnInt(0)
		}
		err = errors.Join(st.Err(), st.Close())
		if err != nil {
			return 0, 0, err
		}
	}
	return appID, version, nil
}

func (ix *Index) isEmpty() (bool, error) {
	st, _, err := ix.write.Prepare(`SELECT count(*) FROM sqlite_schema`)
	if err != nil {
		return false, err
	}
	defer st.Close()
	st.Step()
	return st.ColumnInt(0) == 0, st.Err()
}

func (ix *Index) storedSettings() (Settings, error) {
	var s Settings
	st, _, err := ix.write.Prepare(`SELECT value FROM meta WHERE key = 'settings'`)
	if err != nil {
		return s, err
	}
	defer st.Close()
	if !st.Step() {
		return s, errors.Join(errors.New("no settings"), st.Err())
	}
	return s, json.Unmarshal([]byte(st.ColumnText(0)), &s)
}

// settingsChange describes what differs, or "".
func settingsChange(old, cur Settings) string {
	switch {
	case old.Vault != cur.Vault:
		return fmt.Sprintf("the index belonged to vault %s", old.Vault)
	case old.Tokenizer != cur.Tokenizer:
		return fmt.Sprintf("tokenizer %q → %q", old.Tokenizer, cur.Tokenizer)
	case old.Chunk != cur.Chunk:
		return fmt.Sprintf("chunking %+v → %+v", old.Chunk, cur.Chunk)
	case old.PDFs != cur.PDFs:
		return fmt.Sprintf("PDFs included %v → %v", old.PDFs, cur.PDFs)
	}
	return ""
}

// create drops everything and makes the empty schema, in one transaction
// so a kill leaves either the old index or the new empty one.
func (ix *Index) create() error {
	settings, err := json.Marshal(ix.settings)
	if err != nil {
		return err
	}
	err = ix.tx(func(c *sqlite3.Conn) error {
		err := c.Exec(fmt.Sprintf(`
			DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS vectors;
			DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS ocr;
			PRAGMA application_id = %d; PRAGMA user_version = %d;
			CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
			CREATE TABLE files(
				path TEXT PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL,
				mtime INTEGER NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,
				warning TEXT NOT NULL DEFAULT '', pdf TEXT,
				blank INTEGER NOT NULL DEFAULT 0, ocr TEXT NOT NULL DEFAULT '');
			CREATE INDEX files_hash ON files(hash);
			CREATE TABLE ocr(hash TEXT NOT NULL, key TEXT NOT NULL, pages TEXT NOT NULL, PRIMARY KEY(hash, key)) WITHOUT ROWID;
			CREATE TABLE chunks(
				id INTEGER PRIMARY KEY, path TEXT NOT NULL, idx INTEGER NOT NULL,
				line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, page INTEGER NOT NULL,
				hash TEXT NOT NULL, UNIQUE(path, idx));
			CREATE INDEX chunks_hash ON chunks(hash);
			CREATE TABLE vectors(hash TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
			CREATE VIRTUAL TABLE fts USING fts5(%s, tokenize=%q);`,
			applicationID, SchemaVersion, ftsColumns, ix.settings.Tokenizer))
		if err != nil {
			return err
		}
		st, _, err := c.Prepare(`INSERT INTO meta(key, value) VALUES ('settings', ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := errors.Join(st.BindText(1, string(settings)), st.Exec()); err != nil {
			return err
		}
		return newInstanceID(c)
	})
	if err != nil {
		return fmt.Errorf("index %s: create schema: %w", ix.path, err)
	}
	return nil
}

// tx runs fn in a write transaction on the write connection.
func (ix *Index) tx(fn func(*sqlite3.Conn) error) (err error) {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	if err := ix.damagedErr(); err != nil {
		return err
	}
	if ix.write == nil {
		return fmt.Errorf("index %s: closed", ix.path)
	}
	defer func() { err = ix.noteDamage(err) }()
	if err := ix.write.Exec("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ix.write.Exec("ROLLBACK"))
		}
	}()
	ix.bm25.tx.begin()
	if err := fn(ix.write); err != nil {
		return err
	}
	next := ix.bm25.prepareCopy(ix.write) // the in-memory copy after fn's changes (postingstrack.go)
	if err := ix.write.Exec("COMMIT"); err != nil {
		return err
	}
	ix.bm25.publish(next)
	return nil
}

// BM25 is the index's BM25 search and its postings copy.
func (ix *Index) BM25() *BM25 { return &ix.bm25 }

// Vectors are the index's chunk embeddings and their model.
func (ix *Index) Vectors() *Vectors { return &ix.vectors }

// Health is the index's damage state and its healing.
func (ix *Index) Health() *Health { return &ix.health }

// Path is the index file.
func (ix *Index) Path() string { return ix.path }

// Settings are the settings the index was opened with.
func (ix *Index) Settings() Settings { return ix.settings }

// Close closes every connection, waiting for searches in flight to give
// theirs back. It is safe to call more than once; searches after it fail.
func (ix *Index) Close() error {
	var errs []error
	ix.closeOnce.Do(func() {
		close(ix.closed)
		for range cap(ix.readers) {
			c := <-ix.readers
			if c != nil {
				errs = append(errs, ix.bm25.stmts.release(c), c.Close())
			}
		}
		errs = append(errs, ix.bm25.shutdown())
		ix.writeMu.Lock()
		defer ix.writeMu.Unlock()
		errs = append(errs, ix.bm25.closeRowTokenizer())
		if ix.write != nil {
			errs = append(errs, ix.write.Close())
			ix.write = nil
		}
		if ix.opened {
			ix.health.mu.Lock()
			sound := ix.health.damaged == nil && !ix.health.healing
			ix.health.mu.Unlock()
			stampClean(ix.path, sound && errors.Join(errs...) == nil)
		}
	})
	return errors.Join(errs...)
}

// reader borrows a read connection for fn.
func (ix *Index) reader(ctx context.Context, fn func(*sqlite3.Conn) error) error {
	var c *sqlite3.Conn
	select {
	case <-ix.closed:
		return fmt.Errorf("index %s: closed", ix.path)
	case c = <-ix.readers:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { ix.readers <- c }()
	if c == nil {
		return fmt.Errorf("index %s: connection lost in a failed swap; restart the server", ix.path)
	}
	if err := ix.damagedErr(); err != nil {
		return err
	}
	old := c.SetInterrupt(ctx)
	defer c.SetInterrupt(old)
	return ix.noteDamage(fn(c))
}

// Check verifies the file (SQLite's integrity check) and the FTS5 index
// against the chunks table.
//
// It runs on the write connection: FTS5 on a read connection may keep the
// configuration it read before the last write, and then reports a
// checksum mismatch for an index that is sound.
func (ix *Index) Check(ctx context.Context) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	old := ix.write.SetInterrupt(ctx)
	defer ix.write.SetInterrupt(old)
	return func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`PRAGMA integrity_check`)
		if err != nil {
			return err
		}
		defer st.Close()
		for st.Step() {
			if msg := st.ColumnText(0); msg != "ok" {
				return fmt.Errorf("index %s: integrity: %s", ix.path, msg)
			}
		}
		if err := st.Err(); err != nil {
			return err
		}
		return c.Exec(`INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)`)
	}(ix.write)
}
