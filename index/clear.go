package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/ncruces/go-sqlite3"
)

// Clear deletes every stored vector and forgets the model they
// were made with; the text index stays. It returns how many vectors it
// deleted.
func (v *Vectors) Clear(ctx context.Context) (int, error) {
	n := 0
	err := v.ix.tx(func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT count(*) FROM vectors`)
		if err != nil {
			return err
		}
		if st.Step() {
			n = st.ColumnInt(0)
		}
		if err := errors.Join(st.Err(), st.Close()); err != nil {
			return err
		}
		return c.Exec(`DELETE FROM vectors; DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_alias', 'embedding_dim')`)
	})
	if err != nil {
		return 0, fmt.Errorf("index %s: clear embeddings: %w", v.ix.path, err)
	}
	return n, nil
}

// StatePath is where the engine state of the index at path is kept (see
// search.Engine.EncodeState): next to it, so that removing an index
// removes its state too.
func StatePath(path string) string { return path + ".engine" }

// Remove deletes the index file at path with its -wal, -shm, engine
// state, vault-model and clean-close stamp files,
// after checking that it is an enquire-mcp index (never another program's
// database). It returns the bytes freed.
func Remove(ctx context.Context, path string) (int64, error) {
	info, err := Inspect(ctx, path)
	if err != nil {
		return 0, err
	}
	if !info.Ours {
		return 0, fmt.Errorf("index %s: %w; not removed", path, ErrForeign)
	}
	for _, extra := range []string{StatePath(path), VaultModelPath(path), cleanPath(path)} {
		if err := os.Remove(extra); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("index %s: %w", path, err)
		}
	}
	for _, suffix := range []string{"-wal", "-shm", ""} { // the journal first, as a rebuild does
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("index %s: %w", path, err)
		}
	}
	return info.Bytes, nil
}

// CacheDir is the folder of the default index files (see DefaultPath).
func CacheDir() (string, error) {
	p, err := DefaultPath("")
	if err != nil {
		return "", err
	}
	return filepath.Dir(p), nil
}

// Found is an index file in the cache dir, with what Inspect said of it.
type Found struct {
	Info
	// Err is why the file could not be read (then Info holds only Path and
	// Bytes).
	Err error
}

// List inspects every index file (*.db) in dir, sorted by name. A
// missing dir is an empty list.
func List(ctx context.Context, dir string) ([]Found, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.db"))
	if err != nil {
		return nil, fmt.Errorf("index: list %s: %w", dir, err)
	}
	sort.Strings(names)
	out := make([]Found, 0, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := Inspect(ctx, name)
		if err != nil && info.Bytes == 0 {
			if st, serr := os.Stat(name); serr == nil {
				info.Bytes = st.Size()
			}
		}
		out = append(out, Found{Info: info, Err: err})
	}
	return out, nil
}
