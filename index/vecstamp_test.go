package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestVectorStamp checks that the vector stamp changes with every change
// of the vectors a load reads (written by this package or by another
// program on the same file, or the chunks they belong to), and with
// nothing else.
func TestVectorStamp(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		op      func(t *testing.T, ix *Index, root string)
		changed bool
	}{
		{name: "nothing", op: func(*testing.T, *Index, string) {}},
		{name: "reads", op: func(t *testing.T, ix *Index, _ string) {
			vectorCount(t, ix)
			if _, err := ix.Vectors().Missing(ctx); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "sync without changes", op: func(t *testing.T, ix *Index, _ string) { syncDisk(t, ix) }},
		{name: "build again, nothing new", op: func(t *testing.T, ix *Index, _ string) { build(t, ix, &embedtest.Model{Name: "a"}, 7) }},
		{name: "put vectors", op: func(t *testing.T, ix *Index, _ string) {
			if err := ix.Vectors().Put(ctx, []string{"somehash"}, [][]float32{make([]float32, embedtest.Dim)}); err != nil {
				t.Fatal(err)
			}
		}, changed: true},
		{name: "another model", op: func(t *testing.T, ix *Index, _ string) { build(t, ix, &embedtest.Model{Name: "b"}, 7) }, changed: true},
		{name: "cleared", op: func(t *testing.T, ix *Index, _ string) {
			if _, err := ix.Vectors().Clear(ctx); err != nil {
				t.Fatal(err)
			}
		}, changed: true},
		{name: "a note changed", op: func(t *testing.T, ix *Index, root string) {
			if err := os.WriteFile(filepath.Join(root, "Home.md"), []byte("# Home\n\nall new text\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			syncDisk(t, ix)
		}, changed: true},
		{name: "another program deletes a vector", op: func(t *testing.T, ix *Index, _ string) {
			rawExec(t, ix.path, `DELETE FROM vectors WHERE hash = (SELECT min(hash) FROM vectors)`)
		}, changed: true},
		{name: "another program rewrites a vector", op: func(t *testing.T, ix *Index, _ string) {
			rawExec(t, ix.path, `UPDATE vectors SET vec = vec WHERE hash = (SELECT min(hash) FROM vectors)`)
		}, changed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := vaulttest.Copy(t, "../testdata/vault")
			path := filepath.Join(t.TempDir(), "ix.db")
			ix := open(t, root, path, false)
			syncDisk(t, ix)
			build(t, ix, &embedtest.Model{Name: "a"}, 7)
			before := stampNow(t, ix)
			if before == "" {
				t.Fatal("no vector stamp")
			}
			seen, err := ix.Vectors().EachStamped(ctx, func(ChunkRef, float32, []int8) error { return nil })
			if err != nil || seen != before {
				t.Fatalf("stamp read with the vectors %q (%v), alone %q", seen, err, before)
			}
			tc.op(t, ix, root)
			if after := stampNow(t, ix); (after != before) != tc.changed {
				t.Fatalf("stamp changed: %v, want %v", after != before, tc.changed)
			}
			// Reopened (the triggers already there), the stamp is the same.
			now := stampNow(t, ix)
			ix.Close()
			ix = open(t, root, path, false)
			if got := stampNow(t, ix); got != now {
				t.Fatal("reopening changed the stamp")
			}
		})
	}
}

func stampNow(t *testing.T, ix *Index) string {
	t.Helper()
	s, err := ix.Vectors().Stamp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawExec runs sql on the index file through a connection of its own, as
// another program would.
func rawExec(t *testing.T, path, sql string) {
	t.Helper()
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec(sql); err != nil {
		t.Fatal(err)
	}
	if c.Changes() == 0 {
		t.Fatal("the statement changed nothing")
	}
}

// TestVectorTriggersMissing: an index whose triggers are missing (made
// before them, or dropped by another program) has no vector stamp until
// it is opened again, which adds them; from then on writes move it.
func TestVectorTriggersMissing(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, "../testdata/vault")
	path := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, path, false)
	syncDisk(t, ix)
	build(t, ix, &embedtest.Model{Name: "a"}, 7)
	ix.Close()
	rawExec(t, path, `DROP TRIGGER vectors_version_ins; DROP TRIGGER vectors_version_upd; DROP TRIGGER vectors_version_del; DELETE FROM meta WHERE key = 'vectors_version'`)
	ix = open(t, root, path, false)
	before := stampNow(t, ix)
	if before == "" {
		t.Fatal("no stamp after reopening")
	}
	if err := ix.Vectors().Put(ctx, []string{"somehash"}, [][]float32{make([]float32, embedtest.Dim)}); err != nil {
		t.Fatal(err)
	}
	if stampNow(t, ix) == before {
		t.Fatal("a write did not move the stamp")
	}
}
