package tools

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
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
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x", "overwrite": true}, "privacy rules"},
		{"obsidian_create_note", map[string]any{"path": "Diary.md", "content": "x"}, "privacy rules"},
		{"obsidian_append_to_note", map[string]any{"path": "Private/Secret.md", "content": "x"}, "note not found"},
		{"obsidian_append_to_note", map[string]any{"path": "Diary.md", "content": "x"}, "note not found"},
		{"obsidian_set_frontmatter", map[string]any{"path": "Diary.md", "set": map[string]any{"private": false}}, "note not found"},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Private/Open.md"}, "privacy rules"},
		{"obsidian_rename_note", map[string]any{"path": "Open.md", "new_path": "Diary.md", "overwrite": true}, "privacy rules"},
		{"obsidian_rename_note", map[string]any{"path": "Private/Secret.md", "new_path": "Out.md"}, "note not found"},
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
