package edit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestNotePath(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Inbox/Idea", "Inbox/Idea.md"},
		{"Inbox/Idea.md", "Inbox/Idea.md"},
		{"Inbox/Idea.MD", "Inbox/Idea.MD"},
		{"./a//b.md", "a/b.md"},
		{"v1.2", "v1.2.md"},
	} {
		if got, err := NotePath(tt.in); err != nil || got != tt.want {
			t.Errorf("NotePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "../x.md", "a/../../x.md", "/etc/x.md", ".obsidian/x.md", "a/.trash/x.md", "node_modules/x.md", "a\x00.md", ".hidden.md"} {
		if _, err := NotePath(bad); !errors.Is(err, ErrRefused) {
			t.Errorf("NotePath(%q) err = %v, want ErrRefused", bad, err)
		}
	}
	// Control characters, depth and length (issue 10): refused with a
	// message that names the problem.
	deep := strings.Repeat("d/", MaxPathDepth) + "n.md"
	if got, err := NotePath(deep); err != nil || got != deep {
		t.Errorf("NotePath at the depth limit = %q, %v", got, err)
	}
	long := strings.Repeat(strings.Repeat("n", MaxNameBytes)+"/", 3) + strings.Repeat("n", MaxNameBytes-3) + ".md"
	if got, err := NotePath(long); err != nil || got != long {
		t.Errorf("NotePath of %d bytes = %v", len(long), err)
	}
	for bad, why := range map[string]string{
		"a/\n/b.md":                         "control characters (found U+000A",
		"\n/x.md":                           "control characters",
		"tab\there.md":                      "control characters (found U+0009",
		"del\x7f.md":                        "control characters (found U+007F",
		"c1\u0085.md":                       "control characters (found U+0085",
		"cr\r.md":                           "control characters",
		strings.Repeat("d/", 2000) + "n.md": "2000 folders deep; at most 32",
		"d/" + deep:                         "33 folders deep",
		strings.Repeat(strings.Repeat("n", 200)+"/", 6) + "x": "bytes long; at most 1024",
		strings.Repeat("n", MaxNameBytes+1):                   "is 259 bytes long; at most 255",
	} {
		_, err := NotePath(bad)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), why) {
			t.Errorf("NotePath(%.30q…) err = %v, want ErrRefused mentioning %q", bad, err, why)
		}
	}
}

func TestCreateReadReplace(t *testing.T) {
	root := realTemp(t)
	over, err := Create(root, "New/Deep/Note.md", []byte("hello\n"), false)
	if err != nil || over {
		t.Fatalf("create: %v, overwritten %v", err, over)
	}
	info, err := os.Stat(filepath.Join(root, "New", "Deep", "Note.md"))
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("new note: %v mode %v", err, info.Mode())
	}
	if _, err := Create(root, "New/Deep/Note.md", []byte("again"), false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("create over an existing note: %v, want ErrExist", err)
	}
	if err := os.Chmod(filepath.Join(root, "New", "Deep", "Note.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	if over, err := Create(root, "New/Deep/Note.md", []byte("replaced\n"), true); err != nil || !over {
		t.Fatalf("overwrite: %v %v", err, over)
	}
	if info, _ := os.Stat(filepath.Join(root, "New", "Deep", "Note.md")); info.Mode().Perm() != 0o600 {
		t.Fatalf("overwrite changed the mode to %v", info.Mode())
	}
	got, err := Read(root, "New/Deep/Note.md")
	if err != nil || string(got) != "replaced\n" {
		t.Fatalf("read = %q, %v", got, err)
	}
	if err := Replace(root, "New/Deep/Note.md", []byte("stale"), []byte("x")); !errors.Is(err, ErrChanged) {
		t.Fatalf("replace with stale content: %v, want ErrChanged", err)
	}
	if err := Replace(root, "New/Deep/Note.md", got, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(root, "Missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read missing: %v", err)
	}
	if _, err := Read(root, "No/Folder.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read in a missing folder: %v", err)
	}
	noTempFiles(t, root)
}

func TestSymlinksAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	root := realTemp(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "Linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "Link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Real.md"), []byte("r"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"create through a linked folder": func() error { _, err := Create(root, "Linked/new.md", []byte("x"), false); return err }(),
		"read through a linked folder":   func() error { _, err := Read(root, "Linked/secret.md"); return err }(),
		"read a linked file":             func() error { _, err := Read(root, "Link.md"); return err }(),
		"overwrite a linked file":        func() error { _, err := Create(root, "Link.md", []byte("x"), true); return err }(),
		"replace a linked file":          Replace(root, "Link.md", []byte("s"), []byte("x")),
		"move into a linked folder":      Move(root, "Real.md", "Linked/Real.md", false),
		"move a linked file":             Move(root, "Link.md", "Other.md", false),
	} {
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err = %v, want ErrRefused", name, err)
		}
	}
	if raw, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(raw) != "s" {
		t.Fatal("the file outside the vault changed")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("files appeared outside the vault: %v", entries)
	}
}

func TestMove(t *testing.T) {
	root := realTemp(t)
	for _, rel := range []string{"a.md", "b.md"} {
		if _, err := Create(root, rel, []byte(rel), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := Move(root, "a.md", "b.md", false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("move over an existing note: %v", err)
	}
	if err := Move(root, "a.md", "Sub/Dir/a2.md", false); err != nil {
		t.Fatal(err)
	}
	if readRel(t, root, "Sub/Dir/a2.md") != "a.md" {
		t.Fatal("moved content differs")
	}
	if _, err := os.Stat(filepath.Join(root, "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("source still exists")
	}
	if err := Move(root, "Sub/Dir/a2.md", "b.md", true); err != nil || readRel(t, root, "b.md") != "a.md" {
		t.Fatalf("move with overwrite: %v", err)
	}
	if err := Move(root, "missing.md", "c.md", false); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("move a missing note: %v", err)
	}
}

func TestAtomicWriteLeavesNoTempFile(t *testing.T) {
	root := realTemp(t)
	fsys := openFS(t, root)
	if err := os.WriteFile(filepath.Join(root, "x.md"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// noClobber onto an existing file fails at the last step.
	if err := writeAtomic(fsys, location{disk: "x.md", name: "x.md"}, []byte("new"), 0o644, true); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want ErrExist", err)
	}
	if readRel(t, root, "x.md") != "old" {
		t.Fatal("file changed")
	}
	// A folder that cannot take the temporary file.
	if err := writeAtomic(fsys, location{disk: "nope/y.md", dir: "nope", name: "y.md"}, []byte("x"), 0o644, false); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
	noTempFiles(t, root)
}

// A folder replaced between locate's check and the write (here by another
// folder of the vault under its name) is refused, and nothing is written
// in either folder.
func TestAtomicWriteRefusesSwappedFolder(t *testing.T) {
	root := realTemp(t)
	fsys := openFS(t, root)
	for _, d := range []string{"A", "B"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	loc, err := locate(fsys, "A/n.md", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "A"), filepath.Join(root, "C")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "B"), filepath.Join(root, "A")); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(fsys, loc, []byte("x"), 0o644, true); !errors.Is(err, ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", err)
	}
	for _, d := range []string{"A", "C"} {
		if entries, _ := os.ReadDir(filepath.Join(root, d)); len(entries) != 0 {
			t.Errorf("%s holds %v after a refused write", d, entries)
		}
	}
}

func TestCreateRemovesFoldersItMadeOnFailure(t *testing.T) {
	root := realTemp(t)
	// The folders can be made, but the file name is too long for any
	// common file system: the write fails after the folders were created.
	long := "New/Deeper/" + strings.Repeat("n", 300) + ".md"
	if _, err := Create(root, long, []byte("x"), false); err == nil {
		t.Skip("this file system accepts 300-byte names")
	}
	if _, err := os.Stat(filepath.Join(root, "New")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("folders made for a failed write remain: %v", err)
	}
	noTempFiles(t, root)
	// A folder that existed before stays.
	if err := os.Mkdir(filepath.Join(root, "Kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(root, "Kept/"+strings.Repeat("n", 300)+".md", []byte("x"), false); err == nil {
		t.Fatal("write succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, "Kept")); err != nil {
		t.Fatal("an existing folder was removed")
	}
}

// realTemp is a temporary vault root without symlinks in its path.
func realTemp(t *testing.T) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func TestNFDFileNames(t *testing.T) {
	root := realTemp(t)
	nfd := "Cafe\u0301"                                                  // as macOS writes it
	if err := os.MkdirAll(filepath.Join(root, nfd), 0o755); err != nil { // folder in NFD
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, nfd, "Nai\u0308ve.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nfc := "Caf\u00e9/Na\u00efve.md" // as the vault spells the path
	got, err := Read(root, nfc)
	if err != nil || string(got) != "x\n" {
		t.Fatalf("read NFC path of an NFD file: %q %v", got, err)
	}
	if err := Replace(root, nfc, got, []byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(filepath.Join(root, nfd, "Nai\u0308ve.md")); string(raw) != "y\n" {
		t.Fatalf("the NFD file was not the one rewritten: %q", raw)
	}
	if err := Move(root, nfc, "Caf\u00e9/Other.md", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, nfd, "Other.md")); err != nil {
		t.Fatalf("moved into a new folder instead of the NFD one: %v", err)
	}
}
