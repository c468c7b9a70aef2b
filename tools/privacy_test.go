package tools

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// privateEngine loads root with the privacy rules.
func privateEngine(ctx context.Context, root string, rules *privacy.Rules) (*search.Engine, error) {
	snap, err := vault.Load(ctx, root, vault.Options{Filter: rules})
	if err != nil {
		return nil, err
	}
	return search.New(ctx, snap, analysis.New(), search.Options{})
}

// TestWriteToolsRespectPrivacy: the write tools never create, replace,
// append to, rename into or out of a hidden path, never rewrite links
// inside a hidden note, and a note that marks itself private on disk
// after the load is answered as missing at once.
func TestWriteToolsRespectPrivacy(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"Open.md":           "open note, see [[Target]]",
		"Target.md":         "the target",
		"Private/Secret.md": "secret, see [[Target]]",
		"Diary.md":          "---\nprivate: true\n---\ndiary, see [[Target]]",
		"Later.md":          "visible for now",
	}
	for p, body := range files {
		writeTestFile(t, root, p, body)
	}
	rules, err := privacy.Compile(privacy.Config{Exclude: []string{"Private/**"}, MarkerKey: "private"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := privateEngine(ctx, root, rules)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return privateEngine(ctx, root, rules)
	}})
	cs := connectTo(t, srv)

	refused := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"obsidian_create_note", map[string]any{"path": "Private/New.md", "content": "x"}, "privacy rules"},
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x", "overwrite": true}, "already exists"},
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x"}, "already exists"},
		{"obsidian_append_to_note", map[string]any{"path": "Private/Secret.md", "content": "x"}, "note not found"},
		{"obsidian_append_to_note", map[string]any{"path": "Diary.md", "content": "x"}, "note not found"},
		{"obsidian_set_frontmatter", map[string]any{"path": "Diary.md", "set": map[string]any{"private": false}}, "note not found"},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Private/Open.md"}, "privacy rules"},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Diary.md", "overwrite": true}, "already exists"},
		{"obsidian_rename_note", map[string]any{"path": "Private/Secret.md", "new_path": "Out.md"}, "note not found"},
		{"obsidian_patch_note", map[string]any{"path": "Diary.md", "key": "private", "operation": "delete"}, "note not found"},
		{"obsidian_replace_in_note", map[string]any{"path": "Private/Secret.md", "find": "a", "replace": "b"}, "note not found"},
		{"obsidian_delete_note", map[string]any{"path": "Diary.md"}, "note not found"},
	}
	for _, c := range refused {
		res := call(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s(%v) = %s, want an error with %q", c.tool, c.args, text(res), c.want)
		}
	}
	for p, body := range files {
		if got := fileText(t, root, p); got != body {
			t.Errorf("%s changed to %q", p, got)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "Private", "New.md")); err == nil {
		t.Error("a note was created in a hidden folder")
	}

	// A rename rewrites links in visible notes only.
	res := call(t, cs, "obsidian_rename_note", map[string]any{"path": "Target.md", "new_path": "Moved.md"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if got := fileText(t, root, "Open.md"); !strings.Contains(got, "[[Moved]]") {
		t.Errorf("visible link not rewritten: %q", got)
	}
	for _, p := range []string{"Private/Secret.md", "Diary.md"} {
		if got := fileText(t, root, p); got != files[p] {
			t.Errorf("rename rewrote the hidden %s: %q", p, got)
		}
	}

	// Later.md turns private on disk: gone for reads and writes at once,
	// before any reload.
	writeTestFile(t, root, "Later.md", "---\nprivate: true\n---\nnow hidden")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_read_note", map[string]any{"path": "Later.md"}},
		{"obsidian_read_note", map[string]any{"title": "Later"}},
		{"obsidian_append_to_note", map[string]any{"path": "Later.md", "content": "x"}},
	} {
		res := call(t, cs, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), "note not found") || strings.Contains(text(res), "now hidden") {
			t.Errorf("%s(%v) after the marker was set = %s", c.tool, c.args, text(res))
		}
	}
	if res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Open.md"}); res.IsError {
		t.Errorf("visible note unreadable: %s", text(res))
	}
}

// TestWriteToolsHidePrivateNotes: a write or memory tool aimed at a note
// that marked itself private answers exactly as in the closest case
// without one: "missing" where the tool can answer so without writing (a
// rename from it, append, set_frontmatter, forget), else a visible note
// at that path, answered as without overwrite (a create or a rename onto
// it, remember there). The private notes are never changed.
func TestWriteToolsHidePrivateNotes(t *testing.T) {
	ctx := context.Background()
	const marker = "---\nprivate: true\n---\n"
	private := map[string]string{
		"Diary.md":         "diary, see [[Target]]\n",
		"Memory/secret.md": "not a memory\n",
		"Memory/kept.md":   "type: memory\nkey: kept\n", // a memory's frontmatter, inside the marker's block below
	}
	visible := map[string]string{"Open.md": "open note, see [[Target]]\n", "Target.md": "the target\n"}
	rules, err := privacy.Compile(privacy.Config{Exclude: []string{"Private/**"}, MarkerKey: "private"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// serve serves visible plus the private notes: marked private
	// (hidden), unmarked (visible) or left out (missing).
	serve := func(kind string) (*mcp.ClientSession, string, map[string]string) {
		root := t.TempDir()
		files := maps.Clone(visible)
		for p, body := range private {
			switch kind {
			case "hidden":
				if strings.HasPrefix(body, "type:") {
					files[p] = "---\nprivate: true\n" + body + "---\nkept fact\n"
				} else {
					files[p] = marker + body
				}
			case "visible":
				files[p] = body
			}
		}
		for p, body := range files {
			writeTestFile(t, root, p, body)
		}
		e, err := privateEngine(ctx, root, rules)
		if err != nil {
			t.Fatal(err)
		}
		srv := New(e, Options{Version: "test", EnableWrite: true, EnableMemory: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
			return privateEngine(ctx, root, rules)
		}})
		return connectTo(t, srv), root, files
	}
	hidden, hiddenRoot, hiddenFiles := serve("hidden")
	refs := map[string]*mcp.ClientSession{}
	refs["visible"], _, _ = serve("visible")
	refs["missing"], _, _ = serve("missing")

	for _, c := range []struct {
		tool    string
		args    map[string]any
		ref     string         // the closest case without a private note
		refArgs map[string]any // its arguments, when they differ
	}{
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x"}, "visible", nil},
		{"obsidian_create_note", map[string]any{"path": "Diary", "content": "x", "frontmatter": map[string]any{"a": 1}}, "visible", nil},
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x", "overwrite": true}, "visible", map[string]any{"path": "Diary.md", "content": "x"}},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Diary.md"}, "visible", nil},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Diary.md", "dry_run": true}, "visible", nil},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Diary.md", "overwrite": true}, "visible", map[string]any{"path": "Open.md", "new_path": "Diary.md"}},
		{"obsidian_rename_note", map[string]any{"path": "Diary.md", "new_path": "Elsewhere.md"}, "missing", nil},
		{"obsidian_rename_note", map[string]any{"path": "Diary.md", "new_path": "Private/Diary.md"}, "missing", nil},
		{"obsidian_rename_note", map[string]any{"path": "Diary.md", "new_path": " "}, "missing", nil},
		{"obsidian_rename_note", map[string]any{"path": "Diary.md", "new_path": "../out.md"}, "missing", nil},
		{"obsidian_remember", map[string]any{"key": "secret", "fact": "x"}, "visible", nil},
		{"obsidian_forget", map[string]any{"key": "secret"}, "missing", nil},
		{"obsidian_forget", map[string]any{"key": "kept"}, "missing", nil},
		{"obsidian_read_note", map[string]any{"path": "Memory/kept.md"}, "missing", nil},
		{"obsidian_append_to_note", map[string]any{"path": "Diary.md", "content": "x"}, "missing", nil},
		{"obsidian_set_frontmatter", map[string]any{"path": "Diary.md", "set": map[string]any{"private": false}}, "missing", nil},
		{"obsidian_patch_note", map[string]any{"path": "Diary.md", "heading": "A", "operation": "replace", "content": "x"}, "missing", nil},
		{"obsidian_replace_in_note", map[string]any{"path": "Diary.md", "find": "a", "replace": "b", "dry_run": true}, "missing", nil},
		{"obsidian_delete_note", map[string]any{"path": "Diary.md", "dry_run": true}, "missing", nil},
		{"obsidian_tag_note", map[string]any{"path": "Diary.md", "add": []any{"x"}}, "missing", nil},
	} {
		refArgs := c.refArgs
		if refArgs == nil {
			refArgs = c.args
		}
		got, want := call(t, hidden, c.tool, c.args), call(t, refs[c.ref], c.tool, refArgs)
		if !want.IsError {
			t.Fatalf("%s(%v) on the %s note succeeded: the comparison proves nothing", c.tool, refArgs, c.ref)
		}
		if got.IsError != want.IsError || text(got) != text(want) {
			t.Errorf("%s(%v): a private note answers unlike a %s one:\n private %s\n %-7s %s", c.tool, c.args, c.ref, text(got), c.ref, text(want))
		}
	}
	// read_notes lists what it could not read inside a successful answer.
	readNotes := map[string]any{"paths": []any{"Diary.md", "Open.md"}}
	got := decode[ReadNotesOutput](t, call(t, hidden, "obsidian_read_notes", readNotes))
	want := decode[ReadNotesOutput](t, call(t, refs["missing"], "obsidian_read_notes", readNotes))
	if !reflect.DeepEqual(got.Missing, want.Missing) || len(want.Missing) != 1 || len(got.Notes) != 1 {
		t.Errorf("read_notes: a private note answers unlike a missing one:\n private %+v\n missing %+v", got, want)
	}
	for p, body := range hiddenFiles {
		if got := fileText(t, hiddenRoot, p); got != body {
			t.Errorf("%s changed to %q", p, got)
		}
	}
}

func writeTestFile(t *testing.T, root, rel, body string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzPrivacyToolsAgree generates random rules (the fuzzer's globs and
// ignore text) and a random vault (from seed), serves it, and checks over
// MCP that the tools agree with the matcher: list_notes lists exactly the
// notes it shows, and read_note finds a note if and only if it shows it.
func FuzzPrivacyToolsAgree(f *testing.F) {
	f.Add(uint64(1), "Private/**", "Journal/\n!Journal/keep.md\n", "")
	f.Add(uint64(2), "**/*.md", "", "a/**")
	f.Add(uint64(3), "", "*\n!*/\n!*.md\n", "")
	f.Add(uint64(7), "[ab]*/**", "b/\n", "*/*.md;*.md")
	f.Fuzz(func(t *testing.T, seed uint64, exclude, ignore, allow string) {
		if strings.Count(exclude+allow, "{") > 4 {
			return // brace alternatives multiply: a few dozen make any glob matcher crawl
		}
		cfg := privacy.Config{MarkerKey: privacy.DefaultMarkerKey}
		if exclude != "" {
			cfg.Exclude = strings.Split(exclude, ";")
		}
		if allow != "" {
			cfg.Allow = strings.Split(allow, ";")
		}
		var ig []byte
		if ignore != "" {
			ig = []byte(ignore)
		}
		rules, err := privacy.Compile(cfg, ig, false)
		if err != nil {
			return
		}
		ctx := context.Background()
		root := t.TempDir()
		files := fuzzVault(seed)
		for p, body := range files {
			writeTestFile(t, root, p, body)
		}
		e, err := privateEngine(ctx, root, rules)
		if err != nil {
			t.Fatal(err)
		}
		cs := connectTo(t, New(e, Options{Version: "test"}))
		listed := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"limit": 500}))
		got := map[string]bool{}
		for _, n := range listed.Notes {
			got[n.Path] = true
		}
		for p, body := range files {
			shown := !rules.Excluded(p) && !strings.Contains(body, "private: true")
			if got[p] != shown {
				t.Errorf("list_notes lists %s: %v, matcher shows it: %v", p, got[p], shown)
			}
			res := call(t, cs, "obsidian_read_note", map[string]any{"path": p})
			if res.IsError == shown {
				t.Errorf("read_note(%s) error %v, matcher shows it: %v: %s", p, res.IsError, shown, text(res))
			}
		}
	})
}

// fuzzVault returns up to 10 notes under a few folders, some marked
// private, from a fixed alphabet of names.
func fuzzVault(seed uint64) map[string]string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	dirs := []string{"", "a/", "b/", "a/b/", "Journal/", "Private/"}
	names := []string{"keep.md", "x.md", "Note.md", "b.md", "x y.md"}
	files := map[string]string{}
	for i := range 1 + rng.IntN(10) {
		body := fmt.Sprintf("note %d", i)
		if rng.IntN(4) == 0 {
			body = "---\nprivate: true\n---\n" + body
		}
		files[dirs[rng.IntN(len(dirs))]+names[rng.IntN(len(names))]] = body
	}
	return files
}
