package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestIndexFileInsideVaultRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outside, "link-to-vault")
	if err := os.Symlink(filepath.Join(root, "sub"), link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file   string
		refuse bool
	}{
		{filepath.Join(root, "index.db"), true},
		{filepath.Join(root, "sub", "index.db"), true},
		{filepath.Join(root, ".obsidian", "index.db"), true}, // not yet created
		{filepath.Join(link, "index.db"), true},              // symlinked into the vault
		{filepath.Join(outside, "index.db"), false},
		{root + "-sibling/index.db", false},
	}
	for _, tt := range tests {
		vf := &vaultFlags{indexFile: tt.file}
		_, err := vf.indexPath(real)
		if got := err != nil; got != tt.refuse {
			t.Errorf("indexPath(%s) error = %v, want refused %v", tt.file, err, tt.refuse)
		}
		if err != nil && !errors.Is(err, errUsage) {
			t.Errorf("indexPath(%s) error %v is not a usage error", tt.file, err)
		}
	}
}
