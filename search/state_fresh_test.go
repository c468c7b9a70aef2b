package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestStateFresh: a state written with a current BM25 copy is fresh for
// its key, the vault's walk and the index's stamps as they were; another
// key, a changed, added or removed file, another FTS5 or vector stamp,
// or a state saved without the BM25 copy is not.
func TestStateFresh(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	vaulttest.Generate(t, root, 40, 3)
	m := &embedtest.Model{Name: "a"}
	e := embeddedEngine(t, root, m, m, Options{})
	ix := e.opts.Index
	write := func(name string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := e.WriteState(ctx, "k", f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bare := write("bare") // no BM25 copy built yet: never fresh
	if err := ix.BM25().EnsurePostings(ctx); err != nil {
		t.Fatal(err)
	}
	path := write("state")
	notes, atts, _, err := vault.Walk(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	mem, vecs, err := ix.Stamps(ctx)
	if err != nil || mem == "" || vecs == "" {
		t.Fatalf("stamps %q %q, %v", mem, vecs, err)
	}
	changed := append([]vault.File(nil), notes...)
	changed[0].ModTime = changed[0].ModTime.Add(time.Second)
	added := append(append([]vault.File(nil), atts...), vault.File{Path: "new.png", Size: 3, ModTime: time.Unix(1, 0)})
	for _, tc := range []struct {
		name, path, key string
		notes, atts     []vault.File
		mem, vecs       string
		want            bool
	}{
		{"as saved", path, "k", notes, atts, mem, vecs, true},
		{"another key", path, "other", notes, atts, mem, vecs, false},
		{"a note changed", path, "k", changed, atts, mem, vecs, false},
		{"a note gone", path, "k", notes[1:], atts, mem, vecs, false},
		{"an attachment added", path, "k", notes, added, mem, vecs, false},
		{"other FTS5 contents", path, "k", notes, atts, mem + "x", vecs, false},
		{"other vectors", path, "k", notes, atts, mem, vecs + "x", false},
		{"saved without the BM25 copy", bare, "k", notes, atts, mem, vecs, false},
	} {
		got, err := StateFresh(tc.path, tc.key, FreshStamp(tc.notes, tc.atts, tc.mem, tc.vecs))
		if err != nil || got != tc.want {
			t.Errorf("%s: fresh %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := StateFresh(filepath.Join(t.TempDir(), "none"), "k", "x"); err == nil {
		t.Error("a missing state file: no error")
	}
}
