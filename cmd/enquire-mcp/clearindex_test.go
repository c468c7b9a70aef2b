package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestClearIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if _, stdout, _ := runCLI(t, "clear-index", "--vault", fixtureVault); !strings.Contains(stdout, "no index to clear") {
		t.Fatalf("nothing to clear: %q", stdout)
	}
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault); code != 0 {
		t.Fatal(stderr)
	}
	root, _ := vault.RealRoot(fixtureVault)
	p := mustDefaultPath(t, root)
	code, stdout, stderr := runCLI(t, "clear-index", "--vault", fixtureVault)
	if code != 0 || !strings.Contains(stdout, "removed "+p) {
		t.Fatalf("%d %q %q", code, stdout, stderr)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(p + suffix); err == nil {
			t.Fatalf("%s%s still exists", p, suffix)
		}
	}
	// Nothing named after the index is left (engine state, vault model),
	// but the sync lock file, which another process may hold.
	left, _ := filepath.Glob(p + "*")
	if len(left) != 1 || left[0] != p+".lock" {
		t.Fatalf("left behind: %v", left)
	}
	// Another program's file given by --index-file is refused, untouched.
	other := t.TempDir() + "/other.db"
	if err := os.WriteFile(other, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "clear-index", "--index-file", other); code != 1 {
		t.Fatalf("clear-index of a foreign file: code %d", code)
	}
	if b, _ := os.ReadFile(other); string(b) != "precious" {
		t.Fatal("foreign file changed")
	}
}
