package edit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestTrash(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("A/Note.md", "one")
	write("B/Note.md", "two")
	write("C/Note.md", "three")
	for i, tt := range []struct{ rel, text, want string }{
		{"A/Note.md", "one", ".trash/Note.md"},
		{"B/Note.md", "two", ".trash/Note 1.md"},
	} {
		got, err := Trash(root, tt.rel, []byte(tt.text))
		if err != nil || got != tt.want {
			t.Fatalf("%d: %q %v, want %q", i, got, err, tt.want)
		}
		if readRel(t, root, got) != tt.text {
			t.Fatalf("%d: trashed text differs", i)
		}
		if _, err := os.Stat(filepath.Join(root, tt.rel)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%d: %s still there", i, tt.rel)
		}
	}
	// Changed since read: refused, nothing moves.
	if _, err := Trash(root, "C/Note.md", []byte("old")); !errors.Is(err, ErrChanged) {
		t.Fatalf("stale: %v", err)
	}
	if readRel(t, root, "C/Note.md") != "three" {
		t.Fatal("stale trash moved the note")
	}
	// A .trash that is a symlink is refused.
	other := t.TempDir()
	if err := os.RemoveAll(filepath.Join(root, ".trash")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, ".trash")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if _, err := Trash(root, "C/Note.md", []byte("three")); !errors.Is(err, ErrRefused) {
		t.Fatalf("symlinked trash: %v", err)
	}
	if readRel(t, root, "C/Note.md") != "three" {
		t.Fatal("note moved through a symlinked trash")
	}
}
