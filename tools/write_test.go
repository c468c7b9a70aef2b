package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

var writeToolNames = []string{"obsidian_create_note", "obsidian_append_to_note", "obsidian_set_frontmatter", "obsidian_rename_note", "obsidian_patch_note", "obsidian_replace_in_note", "obsidian_delete_note", "obsidian_tag_note", "obsidian_rename_tag"}

// loadEngine builds a TF-IDF engine over a vault folder.
func loadEngine(ctx context.Context, root string) (*search.Engine, error) {
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		return nil, err
	}
	return search.New(ctx, snap, analysis.New(), search.Options{})
}

// connectWrite serves a copy of the fixture with the write tools and a
// Reload that re-reads the copy, as the CLI does.
func connectWrite(t *testing.T) (*mcp.ClientSession, string) {
	t.Helper()
	root := vaulttest.Copy(t, "../testdata/vault")
	e, err := loadEngine(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return loadEngine(ctx, root)
	}})
	return connectTo(t, srv), root
}

func fileText(t *testing.T, root, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// wantWriteError checks a call failed as a tool error mentioning want.
func wantWriteError(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), want)
	}
}

// sameTree fails when any file of the vault changed, appeared or vanished.
func sameTree(t *testing.T, root string, before map[string]string) {
	t.Helper()
	after := treeOf(t, root)
	if len(after) != len(before) {
		t.Fatalf("%d files, had %d", len(after), len(before))
	}
	for p, b := range before {
		if after[p] != b {
			t.Fatalf("%s changed", p)
		}
	}
}

func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			raw, _ := os.ReadFile(p)
			files[p] = string(raw)
		}
		return nil
	})
	return files
}

func TestWriteToolsRegistration(t *testing.T) {
	for _, enable := range []bool{false, true} {
		cs := connectTo(t, New(testEngine(t), Options{Version: "test", EnableWrite: enable}))
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, tool := range res.Tools {
			if !slices.Contains(writeToolNames, tool.Name) {
				continue
			}
			found++
			a := tool.Annotations
			idempotent := tool.Name == "obsidian_set_frontmatter" || tool.Name == "obsidian_delete_note" || tool.Name == "obsidian_tag_note"
			if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint != idempotent || tool.OutputSchema == nil {
				t.Errorf("%s annotations = %+v", tool.Name, a)
			}
		}
		if want := map[bool]int{false: 0, true: len(writeToolNames)}[enable]; found != want {
			t.Errorf("EnableWrite=%v: %d write tools, want %d", enable, found, want)
		}
	}
	// --disabled-tools applies to write tools too.
	cs := connectTo(t, New(testEngine(t), Options{EnableWrite: true, DisabledTools: []string{"obsidian_rename_note"}}))
	res, _ := cs.ListTools(context.Background(), nil)
	for _, tool := range res.Tools {
		if tool.Name == "obsidian_rename_note" {
			t.Fatal("disabled write tool registered")
		}
	}
}

func TestCreateNoteTool(t *testing.T) {
	cs, root := connectWrite(t)
	out := decode[CreateNoteOutput](t, call(t, cs, "obsidian_create_note", map[string]any{
		"path":        "Inbox/New Idea",
		"content":     "# New Idea\n\nA zebrafish aquarium plan.\n",
		"frontmatter": map[string]any{"tags": []any{"idea"}, "rating": 3, "status": "new"},
	}))
	if out.Path != "Inbox/New Idea.md" || !out.Created || out.Overwritten || out.RefreshError != "" {
		t.Fatalf("out = %+v", out)
	}
	want := "---\nrating: 3\nstatus: new\ntags:\n  - idea\n---\n# New Idea\n\nA zebrafish aquarium plan.\n"
	if got := fileText(t, root, "Inbox/New Idea.md"); got != want || out.Bytes != len(want) {
		t.Fatalf("file = %q (%d bytes reported)", got, out.Bytes)
	}
	// The snapshot and the index see the note at once.
	read := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"title": "New Idea"}))
	if read.Path != "Inbox/New Idea.md" || read.Frontmatter["status"] != "new" {
		t.Fatalf("read_note = %+v", read)
	}
	found := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "zebrafish"}))
	if len(found.Matches) == 0 || found.Matches[0].Path != "Inbox/New Idea.md" {
		t.Fatalf("search = %+v", found.Matches)
	}
	// Overwrite.
	wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": "Inbox/New Idea.md", "content": "x"}), "already exists")
	again := decode[CreateNoteOutput](t, call(t, cs, "obsidian_create_note", map[string]any{"path": "Inbox/New Idea.md", "content": "x\n", "overwrite": true}))
	if again.Created || !again.Overwritten || fileText(t, root, "Inbox/New Idea.md") != "x\n" {
		t.Fatalf("overwrite = %+v", again)
	}
	// A name that differs only in case from an existing note.
	wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": "home.md", "content": "x"}), "differ only in case")
	wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": "A.md", "content": "---\na: 1\n---\n", "frontmatter": map[string]any{"b": 1}}), "not both")
}

func TestWriteToolsRefuseUnsafePaths(t *testing.T) {
	cs, root := connectWrite(t)
	outside := t.TempDir()
	symlinks := runtime.GOOS != "windows"
	if symlinks {
		if err := os.Symlink(outside, filepath.Join(root, "Linked")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outside, "note.md"), []byte("outside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := treeOf(t, root)
	bad := []string{"../x.md", "../../etc/passwd", "/tmp/x.md", ".obsidian/x.md", ".trash/x.md", "node_modules/x.md", "a/../../x.md"}
	for _, p := range bad {
		wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": p, "content": "x"}), "refused")
		wantWriteError(t, call(t, cs, "obsidian_append_to_note", map[string]any{"path": p, "content": "x"}), "refused")
		wantWriteError(t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": p, "set": map[string]any{"a": 1}}), "refused")
		wantWriteError(t, call(t, cs, "obsidian_rename_note", map[string]any{"path": p, "new_path": "ok.md"}), "refused")
		wantWriteError(t, call(t, cs, "obsidian_rename_note", map[string]any{"path": "Home.md", "new_path": p}), "refused")
	}
	// Issue 10: a folder named "\n" and 2,000 nested folders.
	for p, why := range map[string]string{
		"a/\n/b.md":                         "control characters",
		strings.Repeat("d/", 2000) + "n.md": "2000 folders deep; at most 32",
		strings.Repeat("x", 2000) + ".md":   "bytes long; at most",
	} {
		wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": p, "content": "x"}), why)
		wantWriteError(t, call(t, cs, "obsidian_rename_note", map[string]any{"path": "Home.md", "new_path": p}), why)
	}
	if symlinks {
		wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": "Linked/new.md", "content": "x"}), "symlink")
		wantWriteError(t, call(t, cs, "obsidian_append_to_note", map[string]any{"path": "Linked/note.md", "content": "x"}), "symlink")
		wantWriteError(t, call(t, cs, "obsidian_rename_note", map[string]any{"path": "Home.md", "new_path": "Linked/Home.md"}), "symlink")
		if entries, _ := os.ReadDir(outside); len(entries) != 1 || fileText(t, outside, "note.md") != "outside\n" {
			t.Fatal("something was written outside the vault")
		}
	}
	sameTree(t, root, before)
}

func TestAppendTool(t *testing.T) {
	cs, root := connectWrite(t)
	orig := fileText(t, root, "Misc/Orphan.md")
	out := decode[AppendOutput](t, call(t, cs, "obsidian_append_to_note", map[string]any{"path": "Misc/Orphan", "content": "Appended quokka line."}))
	if got := fileText(t, root, "Misc/Orphan.md"); out.Path != "Misc/Orphan.md" || !strings.HasPrefix(got, orig) || out.AppendedBytes != len(got)-len(orig) {
		t.Fatalf("out %+v, file %q", out, got)
	}
	if got := fileText(t, root, "Misc/Orphan.md"); !strings.HasSuffix(got, "\n\nAppended quokka line.\n") || strings.Contains(got, "\n\n\nAppended") {
		t.Fatalf("separator: %q", got)
	}
	found := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "quokka"}))
	if len(found.Matches) == 0 || found.Matches[0].Path != "Misc/Orphan.md" {
		t.Fatalf("search after append = %+v", found.Matches)
	}
	// By title, under a heading, in a CRLF note.
	decode[AppendOutput](t, call(t, cs, "obsidian_append_to_note", map[string]any{"title": "CRLF Note", "heading": "CRLF heading", "content": "one\ntwo"}))
	crlf := fileText(t, root, "Syntax/CRLF Note.md")
	// The h1 section holds the h2 below it, so the text goes at the end.
	if !strings.HasSuffix(crlf, "Nothing else to see here.\r\n\r\none\r\ntwo\r\n") || strings.Count(crlf, "\n") != strings.Count(crlf, "\r\n") {
		t.Fatalf("CRLF note = %q", crlf)
	}
	// Custom separator.
	decode[AppendOutput](t, call(t, cs, "obsidian_append_to_note", map[string]any{"path": "Misc/Orphan.md", "content": "- item", "separator": "\n"}))
	if got := fileText(t, root, "Misc/Orphan.md"); !strings.HasSuffix(got, "quokka line.\n- item\n") {
		t.Fatalf("custom separator: %q", got)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"title": "Ideas", "content": "x"}, "ambiguous"},
		{map[string]any{"title": "Kubernets", "content": "x"}, "did you mean: Software/Kubernetes.md"},
		{map[string]any{"path": "Nope/Missing.md", "content": "x"}, "note not found"},
		{map[string]any{"path": "Home.md", "content": ""}, "content"},
		{map[string]any{"path": "Home.md", "content": "x", "heading": "No Such Heading"}, "no heading"},
		{map[string]any{"path": "Home.md", "title": "Home", "content": "x"}, "not both"},
		{map[string]any{"content": "x"}, "give path or title"},
	} {
		wantWriteError(t, call(t, cs, "obsidian_append_to_note", tt.args), tt.want)
	}
}

func TestSetFrontmatterTool(t *testing.T) {
	cs, root := connectWrite(t)
	const rel = "Cooking/Pasta Carbonara.md"
	orig := fileText(t, root, rel)
	args := map[string]any{"path": rel, "set": map[string]any{"status": "done", "rating": nil, "cuisine": "italian"}, "dry_run": true}
	dry := decode[SetFrontmatterOutput](t, call(t, cs, "obsidian_set_frontmatter", args))
	if !dry.DryRun || fileText(t, root, rel) != orig {
		t.Fatal("dry run wrote the file")
	}
	if strings.Join(dry.ChangedKeys, ",") != "cuisine,rating,status" || dry.Before["status"] != "draft" || dry.After["status"] != "done" ||
		dry.After["rating"] != nil || dry.After["cuisine"] != "italian" || !strings.Contains(dry.Diff, "-status: draft\n") || !strings.Contains(dry.Diff, "+cuisine: italian\n") {
		t.Fatalf("dry run = %+v", dry)
	}
	args["dry_run"] = false
	out := decode[SetFrontmatterOutput](t, call(t, cs, "obsidian_set_frontmatter", args))
	if out.DryRun || out.Diff != dry.Diff || out.RefreshError != "" {
		t.Fatalf("out = %+v", out)
	}
	// Byte for byte: only the changed lines differ.
	got := strings.SplitAfter(fileText(t, root, rel), "\n")
	was := strings.SplitAfter(orig, "\n")
	var removed, added []string
	for _, l := range was {
		if !slices.Contains(got, l) {
			removed = append(removed, l)
		}
	}
	for _, l := range got {
		if !slices.Contains(was, l) {
			added = append(added, l)
		}
	}
	if strings.Join(removed, "") != "status: draft\nrating: 4\n" || strings.Join(added, "") != "status: done\ncuisine: italian\n" {
		t.Fatalf("removed %q, added %q:\n%s", removed, added, strings.Join(got, ""))
	}
	if strings.Join(got[len(got)-(len(was)-5):], "") != strings.Join(was[5:], "") {
		t.Fatal("the body changed")
	}
	read := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": rel}))
	if read.Frontmatter["status"] != "done" {
		t.Fatalf("read_note frontmatter = %v", read.Frontmatter)
	}
	// Setting the same values again changes nothing (idempotent).
	delete(args["set"].(map[string]any), "rating")
	same := decode[SetFrontmatterOutput](t, call(t, cs, "obsidian_set_frontmatter", args))
	if len(same.ChangedKeys) != 0 || same.Diff != "" {
		t.Fatalf("second call = %+v", same)
	}
}

func TestSetFrontmatterToolCRLFAndRefusals(t *testing.T) {
	cs, root := connectWrite(t)
	const crlf = "Syntax/CRLF Note.md"
	orig := fileText(t, root, crlf)
	decode[SetFrontmatterOutput](t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"title": "CRLF Note", "set": map[string]any{"reviewed": true}}))
	want := strings.Replace(orig, "tags: [crlf-test]\r\n", "tags: [crlf-test]\r\nreviewed: true\r\n", 1)
	if got := fileText(t, root, crlf); got != want {
		t.Fatalf("CRLF note:\n%q\nwant:\n%q", got, want)
	}
	// A note without frontmatter gets a block.
	decode[SetFrontmatterOutput](t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": "Misc/Orphan.md", "set": map[string]any{"status": "seen"}}))
	if got := fileText(t, root, "Misc/Orphan.md"); !strings.HasPrefix(got, "---\nstatus: seen\n---\n# Orphan\n") {
		t.Fatalf("new block: %q", got)
	}
	const bad = "Syntax/Malformed YAML.md"
	before := fileText(t, root, bad)
	wantWriteError(t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": bad, "set": map[string]any{"title": "Fixed"}}), "malformed frontmatter")
	if fileText(t, root, bad) != before {
		t.Fatal("malformed YAML was rewritten")
	}
	wantWriteError(t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": "Home.md", "set": map[string]any{}}), "set")
	wantWriteError(t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": "Home.md"}), "set")
	wantWriteError(t, call(t, cs, "obsidian_set_frontmatter", map[string]any{"path": "Missing.md", "set": map[string]any{"a": 1}}), "note not found")
}

func TestRenameTool(t *testing.T) {
	cs, root := connectWrite(t)
	before := treeOf(t, root)
	args := map[string]any{"path": "Science/Black Holes.md", "new_path": "Space/Black Hole", "dry_run": true}
	dry := decode[RenameOutput](t, call(t, cs, "obsidian_rename_note", args))
	sameTree(t, root, before)
	if dry.From != "Science/Black Holes.md" || dry.To != "Space/Black Hole.md" || !dry.DryRun || dry.TotalRewrites != 5 || len(dry.Warnings) != 0 {
		t.Fatalf("dry run = %+v", dry)
	}
	changes := map[string]string{}
	for _, f := range dry.Files {
		if f.Rewrites != len(f.Changes) {
			t.Fatalf("%s: rewrites %d, %d changes", f.Path, f.Rewrites, len(f.Changes))
		}
		for _, c := range f.Changes {
			changes[c.Before] = c.After
			if c.Target != "Space/Black Hole.md" || c.Line == 0 {
				t.Fatalf("change %+v", c)
			}
		}
	}
	for b, a := range map[string]string{
		"[[Black Holes]]":                "[[Black Hole]]",
		"[[Black Holes|the void]]":       "[[Black Hole|the void]]",
		"![[Black Holes#Event horizon]]": "![[Black Hole#Event horizon]]",
		"[[../Science/Black Holes]]":     "[[../Space/Black Hole]]",
	} {
		if changes[b] != a {
			t.Errorf("%s -> %q, want %q", b, changes[b], a)
		}
	}
	args["dry_run"] = false
	out := decode[RenameOutput](t, call(t, cs, "obsidian_rename_note", args))
	if out.DryRun || out.TotalRewrites != dry.TotalRewrites || out.RefreshError != "" {
		t.Fatalf("out = %+v", out)
	}
	if _, err := os.Stat(filepath.Join(root, "Science", "Black Holes.md")); err == nil {
		t.Fatal("old file still there")
	}
	if !strings.Contains(fileText(t, root, "Home.md"), "[[Black Hole]]") {
		t.Fatal("Home.md not rewritten")
	}
	// The snapshot follows at once: the note reads at its new path, the
	// old path is gone, and the rewritten links resolve.
	read := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Space/Black Hole.md"}))
	if read.Path != "Space/Black Hole.md" {
		t.Fatalf("read = %+v", read)
	}
	wantWriteError(t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Science/Black Holes.md"}), "not found")
	home := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Syntax/Relative Links.md"}))
	for _, l := range home.Links {
		if l.Status == "unresolved" {
			t.Fatalf("unresolved link after rename: %+v", l)
		}
	}
}

func TestRenameToolRefusals(t *testing.T) {
	cs, root := connectWrite(t)
	before := treeOf(t, root)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "Home.md", "new_path": "Misc/Orphan.md"}, "already exists"},
		{map[string]any{"path": "Nope.md", "new_path": "X.md"}, "note not found"},
		{map[string]any{"title": "Ideas", "new_path": "X.md"}, "ambiguous"},
		{map[string]any{"path": "Home.md", "new_path": "Home.md"}, "current path"},
		{map[string]any{"path": "Home.md"}, "new_path"},
		{map[string]any{"path": "Home.md", "new_path": "Home|2.md"}, "breaks links"},
	} {
		wantWriteError(t, call(t, cs, "obsidian_rename_note", tt.args), tt.want)
	}
	sameTree(t, root, before)
	// Overwrite replaces the other note.
	out := decode[RenameOutput](t, call(t, cs, "obsidian_rename_note", map[string]any{"path": "Misc/Orphan.md", "new_path": "Archive/Ideas.md", "overwrite": true}))
	if out.To != "Archive/Ideas.md" || !strings.Contains(fileText(t, root, "Archive/Ideas.md"), "# Orphan") {
		t.Fatalf("overwrite = %+v", out)
	}
}

func TestRenameToolDuplicateNames(t *testing.T) {
	cs, root := connectWrite(t)
	// Moving Projects/Ideas.md away from Projects/ leaves Roadmap's bare
	// [[Ideas]] ambiguous with Archive/Ideas.md: it gets the shortest path
	// that only the moved note matches.
	out := decode[RenameOutput](t, call(t, cs, "obsidian_rename_note", map[string]any{"title": "Roadmap", "new_path": "Projects/Roadmap 2026.md"}))
	if out.TotalRewrites != 1 { // Home's [[Roadmap]]
		t.Fatalf("roadmap rename = %+v", out)
	}
	// Garden Log's [[Ideas]] meant Archive/Ideas.md by a tie-break (the
	// shorter path) that Later/Ideas.md would now win: it is pinned to
	// its note. Old Plans' [[Ideas]] keeps its same-folder match untouched.
	out = decode[RenameOutput](t, call(t, cs, "obsidian_rename_note", map[string]any{"path": "Projects/Ideas.md", "new_path": "Later/Ideas.md"}))
	want := []RenameFile{
		{Path: "Gardening/Garden Log.md", Rewrites: 1, Changes: []RenameChange{{Line: 13, Before: "[[Ideas]]", After: "[[Archive/Ideas]]", Target: "Archive/Ideas.md"}}},
		{Path: "Projects/Roadmap 2026.md", Rewrites: 1, Changes: []RenameChange{{Line: 14, Before: "[[Ideas]]", After: "[[Later/Ideas]]", Target: "Later/Ideas.md"}}},
	}
	got, _ := json.Marshal(out.Files)
	if wantJSON, _ := json.Marshal(want); string(got) != string(wantJSON) || out.TotalRewrites != 2 {
		t.Fatalf("ideas rename = %+v", out)
	}
	if !strings.Contains(fileText(t, root, "Projects/Roadmap 2026.md"), "[[Later/Ideas]]") {
		t.Fatal("Roadmap not rewritten")
	}
	// Both still mean Archive/Ideas.md.
	for _, rel := range []string{"Gardening/Garden Log.md", "Archive/Old Plans.md"} {
		n := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": rel}))
		for _, l := range n.Links {
			if l.Target == "Ideas" && l.Resolved != "Archive/Ideas.md" {
				t.Fatalf("%s: [[Ideas]] -> %s", rel, l.Resolved)
			}
		}
	}
}

// A write whose request is cancelled still reloads the engine (issue 10):
// the file is written, so the reload runs on a context without the
// request's cancellation.
func TestWriteReloadSurvivesCancelledRequest(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	e, err := loadEngine(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var reloads int
	srv := New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		reloads++
		return loadEngine(ctx, root)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := srv.createNote(ctx, CreateNoteInput{Path: "Inbox/Cancelled.md", Content: "# Cancelled\n\nwombat\n"})
	if err != nil || out.RefreshError != "" || reloads != 1 {
		t.Fatalf("out %+v, err %v, %d reloads", out, err, reloads)
	}
	if srv.engine().Snapshot().Note("Inbox/Cancelled.md") == nil {
		t.Fatal("the engine does not know the note written by the cancelled request")
	}
}
