package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestResumeBM25Copy: the engine state carries the in-memory BM25
// copy, so a resume answers BM25 from memory at once. A state next
// to a rebuilt index (another instance id, maybe the same FTS5 stamp), or
// a truncated state, is not used for it: the copy is built again and the
// next save carries it. Every start answers exactly as a fresh one, and
// only a start with no file changed and the copy taken skips the sync.
func TestResumeBM25Copy(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	ixFile := filepath.Join(t.TempDir(), "mem.db")
	start := func() *Vault {
		t.Helper()
		cfg := testConfig(t, root, ixFile)
		cfg.KeepState = true
		return mustLoad(t, cfg)
	}
	want := freshEngine(t, root)
	check := func(l *Vault, wantStart, wantWhy string, fromPostings bool) { // fromPostings: BM25 must come from memory at once
		t.Helper()
		if !strings.HasPrefix(l.started, wantStart) || !strings.Contains(l.postingsWhy, wantWhy) || (wantWhy == "") != (l.postingsWhy == "") {
			t.Fatalf("started from %q, BM25 copy %q; want %q…, %q", l.started, l.postingsWhy, wantStart, wantWhy)
		}
		// A start with nothing changed and the copy taken skips the index
		// sync (its stats stay zero); every other start syncs.
		if skipped := l.sync.Duration == 0; skipped != (l.resumed && l.changedSince == 0 && l.postingsWhy == "") {
			t.Fatalf("started from %q, BM25 copy %q: sync skipped %v", l.started, l.postingsWhy, skipped)
		}
		before := l.ix.BM25().PostingsSearches()
		if d := enginetest.Diff(ctx, l.eng, want.eng, enginetest.Queries); d != "" {
			t.Fatalf("started from %q: differs from a fresh start: %s", l.started, d)
		}
		if fromPostings && l.ix.BM25().PostingsSearches() == before {
			t.Fatalf("started from %q: no search answered from memory", l.started)
		}
		if err := l.Close(); err != nil { // saves the state when a save is due
			t.Fatal(err)
		}
	}

	check(start(), "files (no engine state)", "", false)
	check(start(), "engine state, 0 files changed", "", true)

	// The index rebuilt (as `index --rebuild` does) with the old state kept.
	l := start()
	settings := l.ix.Settings()
	l.Close()
	ix, err := index.Open(ctx, ixFile, settings, true)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	check(start(), "engine state", "instance id", false)
	check(start(), "engine state, 0 files changed", "", true) // saved again, with the copy

	// A truncated state: a start from the files, then a state with the copy.
	st := index.StatePath(ixFile)
	data, err := os.ReadFile(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st, data[:len(data)*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	check(start(), "files (state data damaged", "", false)
	check(start(), "engine state, 0 files changed", "", true)
}
