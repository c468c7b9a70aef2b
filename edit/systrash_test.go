package edit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestSystemTrash(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the freedesktop.org trash layout is tested on Linux")
	}
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	st, err := FindSystemTrash()
	if err != nil || st.Dir != filepath.Join(data, "Trash") {
		t.Fatalf("%+v %v", st, err)
	}
	root := t.TempDir()
	for _, rel := range []string{"A/Plan é.md", "B/Plan é.md", "C/Kept.md"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("text of "+rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 28, 16, 30, 5, 0, time.UTC)
	for i, tt := range []struct{ rel, name string }{{"A/Plan é.md", "Plan é.md"}, {"B/Plan é.md", "Plan é 1.md"}} {
		got, err := st.Trash(root, tt.rel, []byte("text of "+tt.rel), now)
		if err != nil || got != filepath.Join(data, "Trash", "files", tt.name) {
			t.Fatalf("%d: %q %v", i, got, err)
		}
		if raw, _ := os.ReadFile(got); string(raw) != "text of "+tt.rel {
			t.Fatalf("%d: trashed text %q", i, raw)
		}
		info, err := os.ReadFile(filepath.Join(data, "Trash", "info", tt.name+".trashinfo"))
		want := "[Trash Info]\nPath=" + strings.NewReplacer(" ", "%20", "é", "%C3%A9").Replace(filepath.ToSlash(filepath.Join(root, tt.rel))) + "\nDeletionDate=2026-11-28T16:30:05\n"
		if err != nil || string(info) != want {
			t.Fatalf("%d: trashinfo %q, want %q (%v)", i, info, want, err)
		}
		if _, err := os.Stat(filepath.Join(root, tt.rel)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%d: note still in the vault", i)
		}
	}
	// Changed since read: nothing moves, nothing is left in the trash.
	before, _ := os.ReadDir(filepath.Join(data, "Trash", "files"))
	if _, err := st.Trash(root, "C/Kept.md", []byte("stale"), now); !errors.Is(err, ErrChanged) {
		t.Fatalf("stale: %v", err)
	}
	after, _ := os.ReadDir(filepath.Join(data, "Trash", "files"))
	infos, _ := os.ReadDir(filepath.Join(data, "Trash", "info"))
	if len(after) != len(before) || len(infos) != len(before) {
		t.Fatalf("a refused trash left %d files, %d infos (had %d)", len(after), len(infos), len(before))
	}
	if raw, _ := os.ReadFile(filepath.Join(root, "C", "Kept.md")); string(raw) != "text of C/Kept.md" {
		t.Fatal("the note changed")
	}
}
