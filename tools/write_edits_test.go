package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestStaleIfMatchRefused reads a note, edits its file on disk as a person
// would, then writes with the etag of the read: every write tool refuses,
// names the current etag, and the person's edit is kept. The same write
// with the fresh etag goes through.
func TestStaleIfMatchRefused(t *testing.T) {
	const rel = "Projects/Crawler.md"
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_append_to_note", map[string]any{"path": rel, "content": "assistant line"}},
		{"obsidian_set_frontmatter", map[string]any{"path": rel, "set": map[string]any{"status": "done"}}},
		{"obsidian_patch_note", map[string]any{"path": rel, "heading": "Todo", "operation": "insert_after", "content": "- assistant task"}},
		{"obsidian_replace_in_note", map[string]any{"path": rel, "find": "polite", "replace": "courteous"}},
		{"obsidian_create_note", map[string]any{"path": rel, "content": "replaced whole", "overwrite": true}},
		{"obsidian_rename_note", map[string]any{"path": rel, "new_path": "Projects/Renamed.md"}},
		{"obsidian_delete_note", map[string]any{"path": rel}},
		{"obsidian_tag_note", map[string]any{"path": rel, "add": []any{"urgent"}}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			cs, root := connectWrite(t)
			read := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": rel}))
			if read.Etag == "" {
				t.Fatal("read_note gave no etag")
			}
			p := filepath.Join(root, filepath.FromSlash(rel))
			edited := fileText(t, root, rel) + "\nA line the person typed meanwhile.\n"
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			before := treeOf(t, root)
			args := map[string]any{"if_match": read.Etag}
			for k, v := range tt.args {
				args[k] = v
			}
			res := call(t, cs, tt.tool, args)
			wantWriteError(t, res, "changed since it was read")
			if !strings.Contains(text(res), etagOf([]byte(edited))) {
				t.Fatalf("the refusal does not name the current etag: %s", text(res))
			}
			sameTree(t, root, before)

			fresh := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": rel}))
			args["if_match"] = fresh.Etag
			if res := call(t, cs, tt.tool, args); res.IsError {
				t.Fatalf("with the fresh etag: %s", text(res))
			}
		})
	}
}

func TestPatchNoteTool(t *testing.T) {
	cs, root := connectWrite(t)
	const rel = "Projects/Crawler.md"
	before := treeOf(t, root)
	dry := decode[EditOutput](t, call(t, cs, "obsidian_patch_note", map[string]any{"path": rel, "heading": "# Crawler > ## Todo", "operation": "insert_before", "content": "- first thing", "dry_run": true}))
	if !dry.DryRun || !strings.Contains(dry.Diff, "+- first thing") {
		t.Fatalf("dry run: %+v", dry)
	}
	sameTree(t, root, before)
	out := decode[EditOutput](t, call(t, cs, "obsidian_patch_note", map[string]any{"path": rel, "heading": "Todo", "operation": "insert_before", "content": "- first thing"}))
	if got := fileText(t, root, rel); !strings.Contains(got, "## Todo\n- first thing\n\n- Retry") || out.Etag != etagOf([]byte(got)) {
		t.Fatalf("after patch (etag %s):\n%s", out.Etag, got)
	}
	// The change is searchable at once.
	if res := call(t, cs, "obsidian_search_text", map[string]any{"query": "first thing"}); !strings.Contains(text(res), rel) {
		t.Fatalf("search after patch: %s", text(res))
	}
	for _, bad := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": rel, "heading": "Nowhere", "operation": "replace", "content": "x"}, `no heading "Nowhere"`},
		{map[string]any{"path": rel, "heading": "Todo", "block": "x", "operation": "replace"}, "exactly one target"},
		{map[string]any{"path": rel, "key": "status", "operation": "insert_after"}, "with key, operation must be set or delete"},
		{map[string]any{"path": rel, "key": "status", "operation": "set"}, "needs a value"},
	} {
		snap := treeOf(t, root)
		wantWriteError(t, call(t, cs, "obsidian_patch_note", bad.args), bad.want)
		sameTree(t, root, snap)
	}
	out = decode[EditOutput](t, call(t, cs, "obsidian_patch_note", map[string]any{"path": rel, "key": "status", "operation": "delete"}))
	if strings.Contains(fileText(t, root, rel), "status:") || !strings.Contains(out.Diff, "-status: active") {
		t.Fatalf("delete key: %+v", out)
	}
}

func TestReplaceInNoteTool(t *testing.T) {
	cs, root := connectWrite(t)
	const rel = "Projects/Crawler.md"
	snap := treeOf(t, root)
	wantWriteError(t, call(t, cs, "obsidian_replace_in_note", map[string]any{"path": rel, "find": "crawl", "replace": "x", "expected_count": 1}), "not the expected 1")
	wantWriteError(t, call(t, cs, "obsidian_replace_in_note", map[string]any{"path": rel, "find": "(", "replace": "x", "regex": true}), "invalid regex")
	sameTree(t, root, snap)
	res := call(t, cs, "obsidian_replace_in_note", map[string]any{"path": rel, "find": `one request per (\w+)`, "replace": "two requests per $1", "regex": true})
	var out EditOutput
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || out.Replacements == nil || *out.Replacements != 1 {
		t.Fatalf("%s", text(res))
	}
	if !strings.Contains(fileText(t, root, rel), "two requests per second") {
		t.Fatal("not replaced")
	}
}

func TestDeleteNoteTool(t *testing.T) {
	cs, root := connectWrite(t)
	const rel = "Software/Go Concurrency.md"
	before := treeOf(t, root)
	dry := decode[DeleteNoteOutput](t, call(t, cs, "obsidian_delete_note", map[string]any{"path": rel, "dry_run": true}))
	if dry.DanglingLinks == 0 || !strings.Contains(strings.Join(dry.LinkedFrom, ","), "Projects/Crawler.md") || !strings.HasPrefix(dry.Trash, "system") {
		t.Fatalf("dry run: %+v", dry)
	}
	sameTree(t, root, before)
	out := decode[DeleteNoteOutput](t, call(t, cs, "obsidian_delete_note", map[string]any{"path": rel}))
	if out.TrashedTo != ".trash/Go Concurrency.md" || out.DanglingLinks != dry.DanglingLinks {
		t.Fatalf("delete: %+v", out)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); !os.IsNotExist(err) {
		t.Fatal("note still in place")
	}
	if fileText(t, root, out.TrashedTo) != before[filepath.Join(root, filepath.FromSlash(rel))] {
		t.Fatal("trashed text differs")
	}
	// Gone from search at once; its backlinks now dangle.
	if res := call(t, cs, "obsidian_search_text", map[string]any{"query": "goroutine starts with a tiny stack"}); strings.Contains(text(res), rel) {
		t.Fatalf("still searchable: %s", text(res))
	}
	wantWriteError(t, call(t, cs, "obsidian_delete_note", map[string]any{"path": rel}), "not found")
}

func TestTagTools(t *testing.T) {
	cs, root := connectWrite(t)
	const rel = "Software/Database Indexing.md"
	out := decode[TagNoteOutput](t, call(t, cs, "obsidian_tag_note", map[string]any{"path": rel, "add": []any{"storage"}, "remove": []any{"databases"}}))
	if !strings.Contains(fileText(t, root, rel), "tags: programming storage\n") || !strings.Contains(strings.Join(out.Tags, ","), "storage") {
		t.Fatalf("tag_note: %+v\n%s", out, fileText(t, root, rel))
	}
	wantWriteError(t, call(t, cs, "obsidian_tag_note", map[string]any{"path": rel, "add": []any{"two words"}}), "not a tag")

	// A rename onto an existing tag needs merge; nothing is written before.
	before := treeOf(t, root)
	wantWriteError(t, call(t, cs, "obsidian_rename_tag", map[string]any{"from": "patterns", "to": "programming"}), "set merge")
	sameTree(t, root, before)
	dry := decode[RenameTagOutput](t, call(t, cs, "obsidian_rename_tag", map[string]any{"from": "programming", "to": "code", "dry_run": true}))
	if dry.TotalRewrites < 3 || len(dry.Files) < 3 {
		t.Fatalf("dry run: %+v", dry)
	}
	sameTree(t, root, before)
	done := decode[RenameTagOutput](t, call(t, cs, "obsidian_rename_tag", map[string]any{"from": "programming", "to": "code"}))
	if done.TotalRewrites != dry.TotalRewrites || len(done.Warnings) != 0 {
		t.Fatalf("rename: %+v", done)
	}
	if got := fileText(t, root, "Software/Go Concurrency.md"); !strings.Contains(got, "tags: [code/go]") {
		t.Fatalf("nested tag not renamed:\n%s", got)
	}
	// Live at once: the old tag is gone from the tag list.
	if res := call(t, cs, "obsidian_list_tags", map[string]any{"prefix": "programming"}); strings.Contains(text(res), `"tag":"programming`) {
		t.Fatalf("old tag still listed: %s", text(res))
	}
	merged := decode[RenameTagOutput](t, call(t, cs, "obsidian_rename_tag", map[string]any{"from": "patterns", "to": "code", "merge": true}))
	if merged.TotalRewrites == 0 {
		t.Fatalf("merge: %+v", merged)
	}
}

// TestDeleteNoteManyBacklinks: a note 500 others link to is still moved
// to the trash, and the reply counts every link left dangling.
func TestDeleteNoteManyBacklinks(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, root, "Hub.md", "# Hub\n")
	for i := range 500 {
		writeTestFile(t, root, fmt.Sprintf("Spokes/s%03d.md", i), "see [[Hub]]\n")
	}
	e, err := loadEngine(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return loadEngine(ctx, root)
	}}))
	out := decode[DeleteNoteOutput](t, call(t, cs, "obsidian_delete_note", map[string]any{"path": "Hub.md"}))
	if out.DanglingLinks != 500 || len(out.LinkedFrom) != maxLinkedFrom || out.TrashedTo != ".trash/Hub.md" {
		t.Fatalf("dangling %d, linked_from %d, trashed to %q", out.DanglingLinks, len(out.LinkedFrom), out.TrashedTo)
	}
}

// TestDeleteNoteFollowsTrashSetting: the system trash (Obsidian's
// default) when the server has one, the vault's .trash for "local" and
// for "none" (never deleted outright).
func TestDeleteNoteFollowsTrashSetting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the freedesktop.org trash is tested on Linux")
	}
	tests := []struct {
		name, app string
		want      func(root, data string) string
		trash     string
	}{
		{"system", `{}`, func(_, data string) string { return filepath.Join(data, "Trash", "files", "Crawler.md") }, "system: moved to the system trash"},
		{"local", `{"trashOption": "local"}`, func(string, string) string { return ".trash/Crawler.md" }, "local:"},
		{"none", `{"trashOption": "none"}`, func(string, string) string { return ".trash/Crawler.md" }, "none:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := t.TempDir()
			t.Setenv("XDG_DATA_HOME", data)
			st, err := edit.FindSystemTrash()
			if err != nil {
				t.Fatal(err)
			}
			root := vaulttest.Copy(t, "../testdata/vault")
			writeTestFile(t, root, ".obsidian/app.json", tt.app)
			e, err := loadEngine(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			cs := connectTo(t, New(e, Options{Version: "test", EnableWrite: true, SystemTrash: &st, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
				return loadEngine(ctx, root)
			}}))
			out := decode[DeleteNoteOutput](t, call(t, cs, "obsidian_delete_note", map[string]any{"path": "Projects/Crawler.md"}))
			if out.TrashedTo != tt.want(root, data) || !strings.HasPrefix(out.Trash, tt.trash) {
				t.Fatalf("%+v", out)
			}
			where := out.TrashedTo
			if !filepath.IsAbs(where) {
				where = filepath.Join(root, filepath.FromSlash(where))
			}
			if raw, err := os.ReadFile(where); err != nil || !strings.Contains(string(raw), "polite web crawler") {
				t.Fatalf("trashed copy: %v", err)
			}
		})
	}
}
