package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestIndexStateFresh: on an unchanged vault the index command finds the
// saved engine state current (from its header, without loading it); any
// change a start would catch up on (files, vectors, options) makes it
// load and save the state again, after which it is current once more.
func TestIndexStateFresh(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(fixtureVault)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "index.db")
	state := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"index", "--vault", root, "--index-file", file}, args...)...)
		if code != 0 {
			t.Fatalf("code %d, stderr %s", code, stderr)
		}
		_, line, ok := strings.Cut(stdout, "engine state for the next start: ")
		if !ok {
			t.Fatalf("no engine state line in\n%s", stdout)
		}
		line, _, _ = strings.Cut(line, "\n")
		return line
	}
	if got := state(); got != "saved (built from the files)" {
		t.Fatalf("first run: %q", got)
	}
	later := time.Now().Add(time.Hour)
	write := func(rel, text string) func() {
		return func() {
			p := filepath.Join(root, rel)
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}
	}
	note := firstNote(t, root)
	for _, tc := range []struct {
		name   string
		change func()
		args   []string
		want   string
	}{
		{"unchanged", func() {}, nil, "up to date"},
		{"a note edited", write(note, "# Edited\n\nnew words here\n"), nil, "updated (1 files changed since it was saved)"},
		{"an attachment added", write("diagram.png", "not really a png"), nil, "updated (1 files changed since it was saved)"},
		{"a note deleted", func() {
			if err := os.Remove(filepath.Join(root, note)); err != nil {
				t.Fatal(err)
			}
		}, nil, "updated (1 files changed since it was saved)"},
		{"vectors built", func() {
			if code, _, stderr := runCLI(t, "build-embeddings", "--vault", root, "--index-file", file, "--embedding-model", "builtin"); code != 0 {
				t.Fatalf("build-embeddings: code %d, %s", code, stderr)
			}
		}, nil, "updated (0 files changed since it was saved)"},
		{"another option", func() {}, []string{"--max-file-size", "999999"}, "saved (built from the files)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.change()
			if got := state(tc.args...); got != tc.want {
				t.Fatalf("after the change: %q, want %q", got, tc.want)
			}
			if got := state(tc.args...); got != "up to date" {
				t.Fatalf("run after: %q, want up to date", got)
			}
		})
	}
}

// firstNote is the vault-relative path of a Markdown note of the vault
// at root.
func firstNote(t *testing.T, root string) string {
	t.Helper()
	notes, _, _, err := vault.Walk(t.Context(), root)
	if err != nil || len(notes) == 0 {
		t.Fatalf("walk: %v (%d notes)", err, len(notes))
	}
	return notes[0].Path
}

// TestNoteMemo: a note read during the sync is reused only while the
// file keeps the size and time it was read at.
func TestNoteMemo(t *testing.T) {
	at := time.Unix(1700000000, 0)
	f := vault.File{Path: "a.md", Size: 10, ModTime: at}
	n := &vault.Note{Path: "a.md"}
	var m noteMemo
	read := m.wrap(func(context.Context, vault.File) (*vault.Note, []vault.Warning) { return n, nil })
	read(t.Context(), f)
	read(t.Context(), vault.File{Path: "b.pdf", Size: 1, ModTime: at})
	for _, tc := range []struct {
		name string
		file vault.File
		ok   bool
	}{
		{"same stat", f, true},
		{"other size", vault.File{Path: "a.md", Size: 11, ModTime: at}, false},
		{"other time", vault.File{Path: "a.md", Size: 10, ModTime: at.Add(time.Second)}, false},
		{"never read", vault.File{Path: "c.md", Size: 10, ModTime: at}, false},
		{"a PDF", vault.File{Path: "b.pdf", Size: 1, ModTime: at}, false},
	} {
		if got, _, ok := m.reuse(tc.file); ok != tc.ok || (ok && got != n) {
			t.Errorf("%s: reused %v (%v), want %v", tc.name, got, ok, tc.ok)
		}
	}
}
