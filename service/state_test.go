package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestResumeEqualsFresh stops a server, changes the vault while it is
// down, and starts it again from its saved engine state: it must say it
// started from the state, and answer exactly as a start from the files
// with a new index (notes, links, backlinks, tags, hits, scores, index
// rows). A damaged state or other privacy rules mean a start from the
// files, with the same answers.
func TestResumeEqualsFresh(t *testing.T) {
	t.Parallel() // every vault has its own folder and index
	vaults := map[string]func(t *testing.T) string{
		"fixture": func(t *testing.T) string { return vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")) },
		"generated": func(t *testing.T) string {
			root := t.TempDir()
			vaulttest.Generate(t, root, 600, 4)
			return root
		},
	}
	for name, mk := range vaults {
		for _, pread := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/pread=%t", name, pread), func(t *testing.T) {
				t.Parallel()
				resumeEqualsFresh(t, mk, pread)
			})
		}
	}
}

// resumeEqualsFresh is TestResumeEqualsFresh on the vault mk makes,
// its state read through the mapping (a small file) or with pread.
func resumeEqualsFresh(t *testing.T, mk func(t *testing.T) string, pread bool) {
	ctx := context.Background()
	root := mk(t)
	ixFile := filepath.Join(t.TempDir(), "resume.db")
	start := func(exclude ...string) *Vault {
		t.Helper()
		cfg := testConfig(t, root, ixFile)
		cfg.KeepState, cfg.StatePread, cfg.Privacy.Exclude = true, pread, exclude
		return mustLoad(t, cfg)
	}
	check := func(l *Vault, wantStart string) {
		t.Helper()
		if !strings.HasPrefix(l.started, wantStart) {
			t.Fatalf("started from %q, want %q…", l.started, wantStart)
		}
		want := freshEngine(t, root)
		if d := enginetest.Diff(ctx, l.eng, want.eng, enginetest.Queries); d != "" {
			t.Fatalf("started from %q: differs from a fresh start: %s", l.started, d)
		}
		if d := servicetest.IndexDiff(t, l, want); d != "" {
			t.Fatalf("started from %q: index differs from a fresh one: %s", l.started, d)
		}
		l.Close() // saves the state when a save is due
	}
	m := vaulttest.NewMutator(t, root, 31)

	check(start(), "files (no engine state)")
	if _, err := os.Stat(index.StatePath(ixFile)); err != nil {
		t.Fatalf("no state saved at the end: %v", err)
	}
	for round := range 3 {
		for range 2 + round {
			m.Step()
		}
		l := start()
		if strings.HasPrefix(l.started, "engine state, 0 files") {
			t.Fatalf("round %d: the changes made while stopped were not seen (%s)", round, l.started)
		}
		check(l, "engine state")
	}
	check(start(), "engine state, 0 files changed")

	if l := start("Projects/**"); !strings.HasPrefix(l.started, "files (engine state made by another build or with other settings)") {
		t.Fatalf("other privacy rules started from %q", l.started)
	} else {
		l.Close() // saves a state for these rules
	}
	if err := os.WriteFile(index.StatePath(ixFile), []byte("enquire-mcp engine state\ngarbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	check(start(), "files (state data damaged")
	check(start(), "engine state, 0 files changed") // the damaged state was replaced
}

// TestResumeFailedSave: a state that cannot be written is a warning,
// never a failure of the command, and the next start reads the files.
func TestResumeFailedSave(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	ixFile := filepath.Join(t.TempDir(), "x.db")
	// A folder where the state file should go: the rename onto it fails.
	if err := os.MkdirAll(filepath.Join(index.StatePath(ixFile), "blocker"), 0o700); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var logged strings.Builder
		cfg := testConfig(t, root, ixFile)
		cfg.KeepState, cfg.Logger = true, slog.New(slog.NewTextHandler(&logged, nil))
		l, err := Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(l.started, "files") {
			t.Fatalf("started from %q with no state file", l.started)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logged.String(), "saving the engine state failed") {
			t.Fatalf("no warning logged:\n%s", logged.String())
		}
		leftovers, _ := filepath.Glob(index.StatePath(ixFile) + ".*.tmp")
		if len(leftovers) > 0 {
			t.Fatalf("temporary files left behind: %v", leftovers)
		}
	}
}
