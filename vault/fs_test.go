package vault

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func openTestFS(t *testing.T, dir string) *FS {
	t.Helper()
	fsys, err := OpenFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

func TestFSReadFile(t *testing.T) {
	outside := writeVault(t, map[string]string{"secret.md": "secret"})
	dir := writeVault(t, map[string]string{"a.md": "hello", "sub/b.md": "b", "big.md": strings.Repeat("x", 100)})
	symlinks := runtime.GOOS != "windows"
	if symlinks {
		for name, target := range map[string]string{
			"out.md": filepath.Join(outside, "secret.md"),
			"outdir": outside,
			"reldir": "../" + filepath.Base(outside),
			"in.md":  "a.md",
		} {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	fsys := openTestFS(t, dir)
	for _, tt := range []struct {
		rel     string
		want    string
		wantErr error // nil: any error
		ok      bool
		links   bool
	}{
		{rel: "a.md", want: "hello", ok: true},
		{rel: "sub/b.md", want: "b", ok: true},
		{rel: "big.md", wantErr: ErrTooLarge},
		{rel: "missing.md", wantErr: fs.ErrNotExist},
		{rel: "sub", wantErr: ErrNotRegular},
		{rel: "../" + filepath.Base(outside) + "/secret.md"},
		{rel: "out.md", wantErr: ErrNotRegular, links: true},
		{rel: "in.md", wantErr: ErrNotRegular, links: true},
		{rel: "outdir/secret.md", links: true},
		{rel: "reldir/secret.md", links: true},
	} {
		if tt.links && !symlinks {
			continue
		}
		got, _, err := fsys.ReadFile(tt.rel, 50)
		switch {
		case tt.ok && (err != nil || string(got) != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.rel, got, err, tt.want)
		case !tt.ok && err == nil:
			t.Errorf("%s: read %q, want an error", tt.rel, got)
		case !tt.ok && tt.wantErr != nil && !errors.Is(err, tt.wantErr):
			t.Errorf("%s: err = %v, want %v", tt.rel, err, tt.wantErr)
		}
	}
}

func TestCleanTemp(t *testing.T) {
	dir := writeVault(t, map[string]string{
		"a.md":                        "note",
		".enquire-1a2b3c.tmp":         "old, ours",
		"sub/.enquire-123456789.tmp":  "old, ours (os.CreateTemp's digits)",
		"sub/.enquire-fresh00.tmp":    "not hex: not ours",
		"sub/.enquire-abc.tmp.bak":    "not ours",
		"sub/enquire-abc.tmp":         "not ours",
		"sub/.enquire-.tmp":           "not ours",
		".obsidian/.enquire-abcd.tmp": "in a hidden folder: never written by us",
		"young/.enquire-beef.tmp":     "young: a write in progress",
	})
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{".enquire-1a2b3c.tmp", "sub/.enquire-123456789.tmp", "sub/.enquire-fresh00.tmp", "sub/.enquire-abc.tmp.bak",
		"sub/enquire-abc.tmp", "sub/.enquire-.tmp", ".obsidian/.enquire-abcd.tmp"} {
		if err := os.Chtimes(filepath.Join(dir, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := openTestFS(t, dir).CleanTemp(context.Background(), time.Now().Add(-10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{".enquire-1a2b3c.tmp", "sub/.enquire-123456789.tmp"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, p := range removed {
		if _, err := os.Lstat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	for _, p := range []string{"a.md", "sub/.enquire-fresh00.tmp", "sub/.enquire-abc.tmp.bak", "sub/enquire-abc.tmp", "sub/.enquire-.tmp",
		".obsidian/.enquire-abcd.tmp", "young/.enquire-beef.tmp"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		".enquire-0123abcd.tmp": true, ".enquire-42.tmp": true, ".enquire-.tmp": false, ".enquire-ABC.tmp": false,
		".enquire-x1.tmp": false, "enquire-12.tmp": false, ".enquire-12.tmp~": false, ".enquire-" + strings.Repeat("a", 33) + ".tmp": false,
	} {
		if got := IsTempName(name); got != want {
			t.Errorf("IsTempName(%q) = %v, want %v", name, got, want)
		}
	}
}

// A file made by hand (not found through a vault handle) is never read by
// path: ReadNote refuses it.
func TestReadNoteNeedsTheVaultHandle(t *testing.T) {
	dir := writeVault(t, map[string]string{"a.md": "# A\n"})
	if n, w := ReadNote(File{Path: "a.md", disk: "a.md", Size: 4}, 0); n != nil || len(w) != 1 {
		t.Fatalf("hand-made File read: %v %v", n, w)
	}
	f, err := openTestFS(t, dir).File("a.md")
	if err != nil {
		t.Fatal(err)
	}
	if n, w := ReadNote(f, 0); n == nil || n.Path != "a.md" || !strings.Contains(n.Body, "# A") || len(w) != 0 {
		t.Fatalf("ReadNote(FS.File) = %v %v", n, w)
	}
}
