package vaulttest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func TestCopy(t *testing.T) {
	src := t.TempDir()
	for rel, text := range map[string]string{"a.md": "alpha", "sub/b.md": "beta"} {
		p := filepath.Join(src, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	dst := vaulttest.Copy(t, src)
	for rel, want := range map[string]string{"a.md": "alpha", "sub/b.md": "beta"} {
		got, err := os.ReadFile(filepath.Join(dst, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, "link")); !os.IsNotExist(err) {
		t.Errorf("symlink copied: %v", err)
	}
	if real, _ := filepath.EvalSymlinks(dst); real != dst {
		t.Errorf("Copy returned %s, real path %s", dst, real)
	}
}
