package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// EachOf is Each for the chunks of the given paths only.
func (v *Vectors) EachOf(ctx context.Context, paths []string, fn func(ref ChunkRef, scale float32, vec []int8) error) error {
	err := v.ix.reader(ctx, func(c *sqlite3.Conn) error {
		return eachRowOf(c, `SELECT c.path, c.idx, c.hash, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash WHERE c.path = ?1 ORDER BY c.idx`,
			paths, func(st *sqlite3.Stmt) error {
				scale, vec, err := DecodeVector(st.ColumnRawBlob(3))
				if err != nil {
					return err
				}
				return fn(ChunkRef{Path: st.ColumnText(0), Chunk: st.ColumnInt(1), Hash: st.ColumnText(2)}, scale, vec)
			})
	})
	if err != nil {
		return fmt.Errorf("index %s: read vectors: %w", v.ix.path, err)
	}
	return nil
}

// fileRowsUnder reads the stored rows of the given paths and of
// everything under them (a path may be a folder).
func (ix *Index) fileRowsUnder(ctx context.Context, paths []string) (map[string]fileRow, error) {
	rows := map[string]fileRow{}
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		// path/ .. path0 ('0' follows '/') bounds everything under path/.
		return eachRowOf(c, `SELECT `+fileRowColumns+` FROM files
			WHERE path = ?1 OR (path >= ?1 || '/' AND path < ?1 || '0')`, paths, func(st *sqlite3.Stmt) error {
			rows[st.ColumnText(0)] = scanFileRow(st)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: read files: %w", ix.path, err)
	}
	return rows, nil
}

// missingUnder is Missing for the chunks of the
// given paths and of everything under them.
func (v *Vectors) missingUnder(ctx context.Context, paths []string) ([]ChunkRef, error) {
	var out []ChunkRef
	err := v.ix.reader(ctx, func(c *sqlite3.Conn) error {
		return eachRowOf(c, `SELECT c.path, c.idx, c.hash FROM chunks c
			WHERE (c.path = ?1 OR (c.path >= ?1 || '/' AND c.path < ?1 || '0'))
			AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = c.hash) ORDER BY c.path, c.idx`, paths, func(st *sqlite3.Stmt) error {
			out = append(out, ChunkRef{Path: st.ColumnText(0), Chunk: st.ColumnInt(1), Hash: st.ColumnText(2)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: chunks without vectors: %w", v.ix.path, err)
	}
	slices.SortFunc(out, func(a, b ChunkRef) int { return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Chunk, b.Chunk)) })
	return slices.CompactFunc(out, func(a, b ChunkRef) bool { return a.Path == b.Path && a.Chunk == b.Chunk }), nil
}

// eachRowOf runs query once per path (bound to ?1) and calls fn for every
// row.
func eachRowOf(c *sqlite3.Conn, query string, paths []string, fn func(*sqlite3.Stmt) error) error {
	st, _, err := c.Prepare(query)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, p := range paths {
		if err := st.BindText(1, p); err != nil {
			return err
		}
		for st.Step() {
			if err := fn(st); err != nil {
				return err
			}
		}
		if err := errors.Join(st.Err(), st.Reset()); err != nil {
			return err
		}
	}
	return nil
}

// NotesSource indexes the given notes of snapshot s, limited to scope (see
// Source.Scope): the notes a live update re-read, without a walk.
func NotesSource(s *vault.Snapshot, notes []*vault.Note, scope []string) Source {
	src := notesSource(s, notes)
	src.Scope = scope
	return src
}

// FileRow is what the index holds for one file: its content hash and how
// many chunks it was split into.
type FileRow struct {
	Path, Hash string
	Chunks     int
}

// Files lists the indexed files by path, with their chunk rows counted
// (tests compare a live-synced index with a fresh one).
func (ix *Index) Files(ctx context.Context) ([]FileRow, error) {
	var out []FileRow
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT f.path, f.hash, (SELECT count(*) FROM chunks c WHERE c.path = f.path) FROM files f ORDER BY f.path`)
		if err != nil {
			return err
		}
		defer st.Close()
		for st.Step() {
			out = append(out, FileRow{Path: st.ColumnText(0), Hash: st.ColumnText(1), Chunks: st.ColumnInt(2)})
		}
		return st.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("index %s: list files: %w", ix.path, err)
	}
	return out, nil
}
