package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestDelete(t *testing.T) {
	root := realTemp(t)
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Memory/a.md", "fact a\n")
	write("Memory/b.md", "fact b\n")
	outside := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "Memory", "link.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	tests := []struct {
		name, rel, old string
		want           error // nil: deleted
	}{
		{"deleted when unchanged", "Memory/a.md", "fact a\n", nil},
		{"changed since read", "Memory/b.md", "stale\n", ErrChanged},
		{"missing", "Memory/none.md", "", fs.ErrNotExist},
		{"symlink", "Memory/link.md", "x", ErrRefused},
		{"outside", "../x.md", "", ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Delete(root, tt.rel, []byte(tt.old))
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(tt.rel))); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("still there: %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if got := readRel(t, root, "Memory/b.md"); got != "fact b\n" {
		t.Errorf("changed file touched: %q", got)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("symlink target removed: %v", err)
	}
}
