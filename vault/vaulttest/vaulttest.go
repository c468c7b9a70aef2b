// Package vaulttest gives tests and benchmarks a vault they may change: a
// copy of a folder tree in a temporary directory.
package vaulttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the regular files and folders under src into a temporary
// folder removed when tb ends, and returns the copy's real path (symlinks
// resolved, as vault.RealRoot gives). Symlinks and other special files in
// src are not copied.
func Copy(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		tb.Fatalf("copy %s: %v", src, err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

// BenchVault is the real vault benchmarks run on: $ENQUIRE_BENCH_VAULT, or
// the shared 13,415-note zettelkasten vault next to the repository (from a
// package folder one level down). The benchmark is skipped when it is
// absent, so `go test ./...` never needs it.
func BenchVault(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ENQUIRE_BENCH_VAULT")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "datasets", "vaults", "zettelkasten")
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("benchmark vault %s not available (set ENQUIRE_BENCH_VAULT): %v", dir, err)
	}
	return dir
}

// Write makes a vault of files (vault-relative path → content) in a new
// temporary folder and returns its root.
func Write(tb testing.TB, files map[string]string) string {
	tb.Helper()
	root := tb.TempDir()
	for rel, body := range files {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}
