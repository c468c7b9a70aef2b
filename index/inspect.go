package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ncruces/go-sqlite3"
)

// Info describes an index file without opening it for writing: what
// doctor reports, what prune decides on, and what lets serve reuse an
// existing index without rebuilding it under other settings.
type Info struct {
	// Path is the index file; Bytes the size of it with its -wal and -shm.
	Path  string
	Bytes int64
	// Ours is false for an SQLite file of another program (ErrForeign).
	Ours bool
	// SchemaVersion is the stored version; Current when it is this
	// binary's SchemaVersion (otherwise the next open rebuilds).
	SchemaVersion int
	Current       bool
	Settings      Settings
	Files         int // notes and PDFs
	PDFs          int
	// PDFsWithoutText have no text layer (scans): indexed by name only.
	PDFsWithoutText int
	Chunks          int
	// Vectors is how many chunks have a vector of EmbeddingModel.
	Vectors        int
	EmbeddingModel string
	EmbeddingAlias string
	EmbeddingDim   int
	// Stamps are the size and modification time of each indexed file, to
	// tell how many changed since the last sync.
	Stamps map[string]Stamp
}

// Stamp is what a sync compares first to tell whether a file changed.
type Stamp struct {
	Size    int64
	ModTime int64 // Unix nanoseconds, as stored
}

// Inspect reads what the index file at path holds, read-only. A missing
// file is an error wrapping os.ErrNotExist; an SQLite file of another
// program comes back with Ours false and nothing else filled in.
func Inspect(ctx context.Context, path string) (Info, error) {
	info := Info{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return info, fmt.Errorf("index %s: %w", path, err)
	}
	info.Bytes = st.Size()
	for _, suffix := range []string{"-wal", "-shm"} {
		if s, err := os.Stat(path + suffix); err == nil {
			info.Bytes += s.Size()
		}
	}
	c, err := openReadOnly(ctx, path)
	if err != nil {
		return info, err
	}
	defer c.Close()
	appID, err := intQuery(c, "PRAGMA application_id")
	if err != nil {
		return info, fmt.Errorf("index %s: %w", path, describe(err))
	}
	if info.Ours = appID == applicationID; !info.Ours {
		return info, nil
	}
	if info.SchemaVersion, err = intQuery(c, "PRAGMA user_version"); err != nil {
		return info, fmt.Errorf("index %s: %w", path, err)
	}
	info.Current = info.SchemaVersion == SchemaVersion
	if err := info.read(c); err != nil {
		return info, fmt.Errorf("index %s: %w", path, err)
	}
	return info, nil
}

// openReadOnly opens the index file at path read-only, interrupted by ctx.
func openReadOnly(ctx context.Context, path string) (*sqlite3.Conn, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	// A read-only open of a WAL file makes the -shm file, with the umask's
	// mode: an empty one of ours first keeps it 0600 (as prepareFile does).
	if f, err := os.OpenFile(abs+"-shm", os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	uri := (&url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(abs), RawQuery: "mode=ro&modeof=" + url.QueryEscape(abs)}).String()
	c, err := sqlite3.OpenFlags(uri, sqlite3.OPEN_READONLY|sqlite3.OPEN_URI)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, describe(err))
	}
	c.SetInterrupt(ctx)
	return c, nil
}

// read fills in settings, counts, the embedding model and the stamps.
func (info *Info) read(c *sqlite3.Conn) error {
	meta := map[string]string{}
	err := eachRow(c, `SELECT key, value FROM meta`, func(st *sqlite3.Stmt) {
		meta[st.ColumnText(0)] = st.ColumnText(1)
	})
	if err != nil {
		return err
	}
	s := Settings{}
	if raw, ok := meta["settings"]; ok {
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	info.Settings = s
	info.EmbeddingModel, info.EmbeddingAlias = meta["embedding_model"], meta["embedding_alias"]
	info.EmbeddingDim, _ = strconv.Atoi(meta["embedding_dim"])
	info.Stamps = map[string]Stamp{}
	err = eachRow(c, `SELECT path, kind, size, mtime, warning FROM files`, func(st *sqlite3.Stmt) {
		info.Stamps[st.ColumnText(0)] = Stamp{Size: st.ColumnInt64(2), ModTime: st.ColumnInt64(3)}
		info.Files++
		if st.ColumnText(1) == "pdf" {
			info.PDFs++
		}
	})
	if err != nil {
		return err
	}
	counts := []struct {
		sql string
		dst *int
	}{
		{`SELECT count(*) FROM chunks`, &info.Chunks},
		{`SELECT count(*) FROM files WHERE kind = 'pdf' AND warning LIKE '%no text layer%'`, &info.PDFsWithoutText},
		// Per chunk, not per vector: identical chunks share one vector.
		{`SELECT count(*) FROM chunks c WHERE EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash)`, &info.Vectors},
	}
	for _, q := range counts {
		if *q.dst, err = intQuery(c, q.sql); err != nil {
			return err
		}
	}
	return nil
}

func intQuery(c *sqlite3.Conn, sql string) (int, error) {
	n := 0
	err := eachRow(c, sql, func(st *sqlite3.Stmt) { n = st.ColumnInt(0) })
	return n, err
}

func eachRow(c *sqlite3.Conn, sql string, fn func(*sqlite3.Stmt)) error {
	st, _, err := c.Prepare(sql)
	if err != nil {
		return err
	}
	for st.Step() {
		fn(st)
	}
	return errors.Join(st.Err(), st.Close())
}
