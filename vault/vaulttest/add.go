package vaulttest

import (
	"os"
	"path/filepath"
	"testing"
)

// AddFiles copies the files of the folder src (not its subfolders) into
// the folder dst of a vault copy, creating dst: fixtures that only some
// tests need stay out of the shared testdata/vault.
func AddFiles(tb testing.TB, src, dst string) {
	tb.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), raw, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
