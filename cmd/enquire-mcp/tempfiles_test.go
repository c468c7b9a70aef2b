package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestCleanStaleTemp(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for name, age := range map[string]time.Duration{
		"note.md":                    time.Hour,
		".enquire-0badc0de.tmp":      time.Hour,        // left by a killed write
		"Sub/.enquire-1234.tmp":      staleTempAge + 1, // just old enough
		"Sub/.enquire-5678.tmp":      time.Second,      // a write in progress
		"Sub/.enquire-notours.tmp":   time.Hour,        // another tool's name
		".trash/.enquire-abcdef.tmp": time.Hour,        // hidden folders are never written
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	removed := cleanStaleTemp(context.Background(), snap, now, slog.New(slog.NewTextHandler(io.Discard, nil)))
	slices.Sort(removed)
	if want := []string{".enquire-0badc0de.tmp", "Sub/.enquire-1234.tmp"}; !slices.Equal(removed, want) {
		t.Fatalf("removed %q, want %q", removed, want)
	}
	for _, kept := range []string{"note.md", "Sub/.enquire-5678.tmp", "Sub/.enquire-notours.tmp", ".trash/.enquire-abcdef.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(kept))); err != nil {
			t.Errorf("%s: %v", kept, err)
		}
	}
}
