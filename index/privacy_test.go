package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fakeRules hides paths under a prefix and notes with "private: true".
type fakeRules struct {
	prefix string
	hash   string
}

func (f fakeRules) Excluded(rel string) bool {
	return f.prefix != "" && strings.HasPrefix(rel, f.prefix)
}
func (f fakeRules) Private(n *vault.Note) bool {
	v, _ := n.Frontmatter["private"].(bool)
	return v
}
func (f fakeRules) Hash() string { return f.hash }

func writeVault(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// indexBytesHold reports whether the index file or its WAL holds s.
func indexBytesHold(t *testing.T, path, s string) bool {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		raw, err := os.ReadFile(path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(s)) {
			return true
		}
	}
	return false
}

func syncWith(t *testing.T, ix *Index, p Privacy) Stats {
	t.Helper()
	ctx := context.Background()
	src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
	if err != nil {
		t.Fatal(err)
	}
	src.Privacy = p
	st, err := ix.Sync(ctx, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Vectors().Build(ctx, src, &embedtest.Model{Name: "toy"}, "toy", 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := ix.Check(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestPrivacyPurge: notes indexed before a rule existed are removed when
// it appears — rows, vectors and bytes — the file is rewritten once, the
// rules are recorded, and a note that marks itself private later is
// purged by the next sync.
func TestPrivacyPurge(t *testing.T) {
	root := t.TempDir()
	writeVault(t, root, map[string]string{
		"Open.md":        "shared words about cars",
		"Secret/a.md":    "zebraqqx alpha about cars and the automobile",
		"Secret/b.md":    "yakqqx beta",
		"Later.md":       "lemurqqx gamma",
		"Elsewhere.md":   "cars vehicle",
		"Secret/Copy.md": "shared words about cars", // same text as Open.md: must not count as a rename
	})
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)

	st := syncWith(t, ix, nil)
	if st.Added != 6 || !indexBytesHold(t, file, "zebraqqx") {
		t.Fatalf("first sync: %+v", st)
	}
	vectorsBefore := vectorCount(t, ix)

	rules := fakeRules{prefix: "Secret/", hash: "h1"}
	st = syncWith(t, ix, rules)
	if st.Purged != 3 || st.Deleted != 0 || !st.PurgedFile {
		t.Errorf("purge sync: %+v", st)
	}
	for _, c := range []string{"zebraqqx", "yakqqx", "Secret/"} {
		if indexBytesHold(t, file, c) {
			t.Errorf("%q still in the index bytes after the purge", c)
		}
	}
	if hits := search(t, ix, "zebraqqx"); len(hits) != 0 {
		t.Errorf("search finds purged text: %v", hits)
	}
	if n := vectorCount(t, ix); n >= vectorsBefore {
		t.Errorf("vectors %d → %d: the purged notes' vectors stayed", vectorsBefore, n)
	}
	if h, _ := ix.storedPrivacy(context.Background()); h != "h1" {
		t.Errorf("stored rules %q, want h1", h)
	}

	st = syncWith(t, ix, rules)
	if st.Purged != 0 || st.PurgedFile || st.Unchanged != 3 {
		t.Errorf("unchanged rules must not purge again: %+v", st)
	}

	writeVault(t, root, map[string]string{"Later.md": "---\nprivate: true\n---\nlemurqqx gamma"})
	st = syncWith(t, ix, rules)
	if st.Purged != 1 || !st.PurgedFile || indexBytesHold(t, file, "lemurqqx") || indexBytesHold(t, file, "Later.md") {
		t.Errorf("marker purge: %+v", st)
	}

	// New rules that hide nothing new still scrub once and are recorded.
	st = syncWith(t, ix, fakeRules{prefix: "Secret/", hash: "h2"})
	if st.Purged != 0 || !st.PurgedFile {
		t.Errorf("changed rules: %+v", st)
	}

	// Rules lifted: the notes come back.
	st = syncWith(t, ix, fakeRules{hash: "h3"})
	if st.Added != 3 || len(search(t, ix, "zebraqqx")) != 1 {
		t.Errorf("lifted rules: %+v", st)
	}
}

// TestSnapshotSourcePurgesMarkedNotes: a snapshot source (serve) drops the
// rows of a note its snapshot hid by the marker, although the file exists.
func TestSnapshotSourcePurgesMarkedNotes(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeVault(t, root, map[string]string{"Open.md": "visible", "Diary.md": "otterqqx feelings"})
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, SnapshotSource(snap), nil); err != nil {
		t.Fatal(err)
	}
	writeVault(t, root, map[string]string{"Diary.md": "---\nprivate: true\n---\notterqqx feelings"})
	rules := fakeRules{hash: "m"}
	if snap, err = vault.Load(ctx, root, vault.Options{Filter: rules}); err != nil {
		t.Fatal(err)
	}
	src := SnapshotSource(snap)
	if src.Privacy == nil {
		t.Fatal("SnapshotSource does not carry the snapshot's rules")
	}
	st, err := ix.Sync(ctx, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Purged != 1 || indexBytesHold(t, file, "otterqqx") || indexBytesHold(t, file, "Diary") {
		t.Errorf("marked note not purged: %+v", st)
	}
}

// TestPurgeDropsVaultModel: a sync that purges notes deletes the
// vault-learned model next to the index (its vocabulary was learned from
// them) and says so; a sync that purges nothing leaves it.
func TestPurgeDropsVaultModel(t *testing.T) {
	root := t.TempDir()
	writeVault(t, root, map[string]string{"Open.md": "shared words", "Secret/a.md": "zebraqqx alpha"})
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	syncWith(t, ix, nil)
	model := VaultModelPath(file)
	for _, c := range []struct {
		rules   Privacy
		dropped bool
	}{
		{fakeRules{prefix: "Secret/", hash: "h1"}, true}, // purges Secret/a.md
		{fakeRules{prefix: "Secret/", hash: "h1"}, false},
		{fakeRules{prefix: "Secret/", hash: "h2"}, false}, // other rules, nothing more hidden
	} {
		if err := os.WriteFile(model, []byte("zebraqqx words"), 0o600); err != nil {
			t.Fatal(err)
		}
		st := syncWith(t, ix, c.rules)
		_, err := os.Stat(model)
		warned := len(st.Warnings) == 1 && st.Warnings[0].Path == model && strings.Contains(st.Warnings[0].Message, "build-embeddings --embedding-model vault")
		if dropped := os.IsNotExist(err); dropped != c.dropped || warned != c.dropped {
			t.Errorf("rules %v (purged %d): model deleted %v, warned %v (%+v); want %v", c.rules, st.Purged, dropped, warned, st.Warnings, c.dropped)
		}
	}
}

// TestPrivacyNewIndex: a new index synced under rules from its first
// sync holds nothing hidden and is not rewritten (nothing was ever
// deleted from it); the rules are recorded, so the next sync does not
// rewrite it either, and changed rules still do.
func TestPrivacyNewIndex(t *testing.T) {
	root := t.TempDir()
	writeVault(t, root, map[string]string{
		"Open.md":     "shared words about cars",
		"Secret/a.md": "zebraqqx alpha",
		"Marked.md":   "---\nprivate: true\n---\nlemurqqx gamma",
	})
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	rules := fakeRules{prefix: "Secret/", hash: "h1"}
	for i, want := range []struct {
		added     int
		rewritten bool
	}{{1, false}, {0, false}} {
		st := syncWith(t, ix, rules)
		if st.Added != want.added || st.Purged != 0 || st.PurgedFile != want.rewritten {
			t.Errorf("sync %d: %+v", i+1, st)
		}
		for _, c := range []string{"zebraqqx", "lemurqqx", "Secret/", "Marked.md"} {
			if indexBytesHold(t, file, c) {
				t.Errorf("sync %d: %q in the index bytes", i+1, c)
			}
		}
		if h, _ := ix.storedPrivacy(context.Background()); h != "h1" {
			t.Errorf("sync %d: stored rules %q, want h1", i+1, h)
		}
	}
	if st := syncWith(t, ix, fakeRules{prefix: "Secret/", hash: "h2"}); !st.PurgedFile {
		t.Errorf("changed rules: %+v, want the file rewritten", st)
	}
}
