package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestOutdatedParseReindexesNotes checks an index whose notes were parsed
// by another parser version indexes every note again once, keeping the
// vectors, and records the version so the next sync changes nothing.
func TestOutdatedParseReindexesNotes(t *testing.T) {
	ctx := context.Background()
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "v.db"), false)
	first := syncDisk(t, ix)
	if first.Added == 0 {
		t.Fatalf("first sync added nothing: %+v", first)
	}
	if st := syncDisk(t, ix); st.Updated != 0 {
		t.Fatalf("second sync updated %d notes, want 0", st.Updated)
	}
	refs, err := ix.Vectors().Missing(ctx)
	if err != nil || len(refs) == 0 {
		t.Fatalf("chunks without vectors: %d, %v", len(refs), err)
	}
	vec := make([]float32, 4)
	vec[0] = 1
	if _, err := ix.Vectors().SetModel(ctx, "test:model", "", 4); err != nil {
		t.Fatal(err)
	}
	if err := ix.Vectors().Put(ctx, []string{refs[0].Hash}, [][]float32{vec}); err != nil {
		t.Fatal(err)
	}
	if err := ix.tx(func(c *sqlite3.Conn) error {
		return c.Exec(`UPDATE meta SET value = '1' WHERE key = 'parse_version'`)
	}); err != nil {
		t.Fatal(err)
	}
	st := syncDisk(t, ix)
	if st.Updated != first.Added {
		t.Fatalf("after a parser change: updated %d, want every note (%d)", st.Updated, first.Added)
	}
	after, err := ix.Vectors().Missing(ctx)
	if err != nil || len(after) != len(refs)-1 {
		t.Fatalf("vectors lost: %d chunks without vectors, want %d (%v)", len(after), len(refs)-1, err)
	}
	if st := syncDisk(t, ix); st.Updated != 0 {
		t.Fatalf("sync after the reparse updated %d notes, want 0", st.Updated)
	}
}
