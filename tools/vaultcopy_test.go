package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// writeFile writes a file under dir, creating folders.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touch sets a file's modification time.
func touch(t *testing.T, dir, rel string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// engineAt loads a vault folder (TF-IDF only) with a clock pinned at now,
// or the real clock when now is zero.
func engineAt(t *testing.T, dir string, now time.Time, opts vault.Options) *search.Engine {
	t.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	var clock func() time.Time
	if !now.IsZero() {
		clock = func() time.Time { return now }
	}
	e, err := search.New(ctx, snap, analysis.New(), search.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fixtureNotes lists the fixture's markdown note paths, in path order.
func fixtureNotes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, n := range testEngine(t).Snapshot().Notes {
		if n.Kind == vault.KindMarkdown {
			out = append(out, n.Path)
		}
	}
	return out
}
