package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestPruneDryRunThenYes: an index whose vault was deleted is listed with
// its size and kept; only --yes deletes it; live vaults' indexes and
// foreign files are never touched.
func TestPruneDryRunThenYes(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	parent := t.TempDir()
	gone := vaulttest.Copy(t, fixtureVault)
	moved := filepath.Join(parent, "Gone")
	if err := os.Rename(gone, moved); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{fixtureVault, moved} {
		if code, _, stderr := runCLI(t, "index", "--vault", v); code != 0 {
			t.Fatalf("index %s: %s", v, stderr)
		}
	}
	foreign := filepath.Join(cache, "enquire-mcp", "notes.db")
	if err := os.WriteFile(foreign, []byte("someone else's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(moved); err != nil {
		t.Fatal(err)
	}
	dbs := func() int {
		m, _ := filepath.Glob(filepath.Join(cache, "enquire-mcp", "*.db"))
		return len(m)
	}
	code, stdout, stderr := runCLI(t, "prune")
	if code != 0 || !strings.Contains(stdout, "would remove") || !strings.Contains(stdout, moved) || !strings.Contains(stdout, "KiB") || !strings.Contains(stdout, "dry run") {
		t.Fatalf("dry run: %d %q %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "skip  "+foreign) {
		t.Fatalf("the foreign file is not reported as skipped: %q", stdout)
	}
	if n := dbs(); n != 3 {
		t.Fatalf("the dry run deleted something: %d files left", n)
	}
	code, stdout, _ = runCLI(t, "prune", "--yes")
	if code != 0 || !strings.Contains(stdout, "removed") || dbs() != 2 {
		t.Fatalf("--yes: %d %q, %d files left", code, stdout, dbs())
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Fatal("the foreign file was deleted")
	}
	if code, stdout, _ = runCLI(t, "search", "--vault", fixtureVault, "levain", "--json"); code != 0 || !strings.Contains(stdout, `"bm25"`) {
		t.Fatalf("the live vault's index was pruned: %q", stdout)
	}
	if _, stdout, _ = runCLI(t, "prune"); !strings.Contains(stdout, "nothing to prune") {
		t.Fatalf("second prune: %q", stdout)
	}
}

// TestPruneKeepsUnmountedVaults: a vault whose parent folder is missing
// too may be on a disk that is not mounted: kept.
func TestPruneKeepsUnmountedVaults(t *testing.T) {
	if gone, why := vaultState("/Volumes/NotMounted/Vault"); gone || !strings.Contains(why, "not mounted") {
		t.Fatalf("vaultState = %v, %q", gone, why)
	}
	if gone, _ := vaultState(t.TempDir()); gone {
		t.Fatal("an existing vault is gone")
	}
	if gone, _ := vaultState(filepath.Join(t.TempDir(), "deleted")); !gone {
		t.Fatal("a deleted vault whose parent exists is not gone")
	}
}
