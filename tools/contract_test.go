package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// toolCall is one call of the end-to-end test: its arguments and a string
// its JSON result must contain.
type toolCall struct {
	tool string
	args map[string]any
	want string
}

// everyTool calls each tool once; write tools last, rename at the very end
// so earlier calls see the fixture's paths.
var everyTool = []toolCall{
	{"obsidian_search", map[string]any{"query": "goroutine channels"}, `"path":"Software/Go Concurrency.md"`},
	{"obsidian_get_chunk", map[string]any{"chunk_id": "Software/Go Concurrency.md#1@d35f8682", "context": 1}, `"heading_path":["Go Concurrency","Select"]`},
	{"obsidian_full_text_search", map[string]any{"query": "goroutine"}, `Software/Go Concurrency.md`},
	{"obsidian_embeddings_search", map[string]any{"query": "goroutine channels"}, `"path":`},
	{"obsidian_read_note", map[string]any{"path": "Projects/Crawler.md"}, `polite web crawler`},
	{"obsidian_read_notes", map[string]any{"paths": []any{"Projects/Crawler.md", "Software/Go Concurrency.md", "Nope.md"}}, `"path":"Nope.md"}],"notes":[{`},
	{"obsidian_list_notes", map[string]any{"folder": "Projects", "sort": "path"}, `"path":"Projects/Crawler.md"`},
	{"obsidian_get_recent_edits", map[string]any{"limit": 3}, `"notes":[`},
	{"obsidian_resolve_wikilink", map[string]any{"wikilink": "[[Go Concurrency#Channels]]"}, `"heading_found":true`},
	{"obsidian_get_backlinks", map[string]any{"path": "Software/Go Concurrency.md"}, `"path":"Projects/Crawler.md"`},
	{"obsidian_get_outbound_links", map[string]any{"path": "Projects/Crawler.md"}, `"target":"Concurrency Patterns"`},
	{"obsidian_get_unresolved_wikilinks", map[string]any{}, `"unresolved":[`},
	{"obsidian_get_note_neighbors", map[string]any{"path": "Projects/Crawler.md"}, `"path":"Software/Go Concurrency.md"`},
	{"obsidian_find_path", map[string]any{"from": "Projects/Crawler.md", "to": "Software/Go Concurrency.md"}, `"found":true`},
	{"obsidian_find_similar", map[string]any{"path": "Software/Go Concurrency.md"}, `"path":"Software/Concurrency Patterns.md"`},
	{"obsidian_context_pack", map[string]any{"query": "goroutine channels", "budget_tokens": 1000}, `Go Concurrency`},
	{"obsidian_list_tags", map[string]any{"prefix": "programming"}, `"tag":"programming/go"`},
	{"obsidian_frontmatter_search", map[string]any{"key": "status", "equals": "active"}, `"path":"Projects/Crawler.md"`},
	{"obsidian_stats", map[string]any{}, `"notes":`},
	{"obsidian_search_text", map[string]any{"query": "polite web crawler"}, `"path":"Projects/Crawler.md"`},
	{"obsidian_dataview_query", map[string]any{"query": `TABLE status FROM "Projects" WHERE status = "active"`}, `"path":"Projects/Crawler.md"`},
	{"obsidian_create_note", map[string]any{"path": "Inbox/New Idea.md", "content": "a fresh idea about [[Crawler]]"}, `"created":true`},
	{"obsidian_append_to_note", map[string]any{"path": "Inbox/New Idea.md", "content": "second thought"}, `"appended_bytes":`},
	{"obsidian_set_frontmatter", map[string]any{"path": "Inbox/New Idea.md", "set": map[string]any{"status": "draft"}}, `"changed_keys":["status"]`},
	{"obsidian_patch_note", map[string]any{"path": "Inbox/New Idea.md", "key": "status", "operation": "set", "value": "ready"}, `+status: ready`},
	{"obsidian_replace_in_note", map[string]any{"path": "Inbox/New Idea.md", "find": "second thought", "replace": "second idea"}, `"replacements":1`},
	{"obsidian_delete_note", map[string]any{"path": "Misc/Orphan.md"}, `"trashed_to":".trash/Orphan.md"`},
	{"obsidian_tag_note", map[string]any{"path": "Inbox/New Idea.md", "add": []any{"#idea"}}, `"tags":["idea"]`},
	{"obsidian_rename_tag", map[string]any{"from": "programming/rust", "to": "programming/rustlang"}, `"total_rewrites":1`},
	{"obsidian_remember", map[string]any{"key": "crawler-politeness", "fact": "The crawler waits one second between requests to a host.", "importance": 7}, `"path":"Memory/crawler-politeness.md"`},
	{"obsidian_search", map[string]any{"query": "crawler waits between requests", "types": []any{"memory"}}, `"memory_key":"crawler-politeness"`},
	{"obsidian_forget", map[string]any{"key": "crawler-politeness"}, `"deleted":true`},
	{"obsidian_rename_note", map[string]any{"path": "Projects/Crawler.md", "new_path": "Projects/Web Crawler.md"}, `"to":"Projects/Web Crawler.md"`},
}

// indexedWriteServer serves a copy of the fixture with a persistent index
// and the write tools; each write reloads the engine and syncs the index.
func indexedWriteServer(t *testing.T) *Server {
	t.Helper()
	ctx := context.Background()
	root := vaulttest.Copy(t, "../testdata/vault")
	ix, err := openIndex(ctx, root, filepath.Join(t.TempDir(), "ix.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	e, err := indexedAt(ctx, root, ix)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(e, Options{Version: "test", EnableWrite: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return indexedAt(ctx, root, ix)
	}})
	return srv
}

// TestEveryToolOnce serves a copy of the fixture with every signal and the
// write tools, lists tools, resources and prompts, and calls each tool
// once through an MCP client. A tool without an entry in everyTool fails
// the test, so a new tool cannot ship untested end to end.
func TestEveryToolOnce(t *testing.T) {
	ctx := context.Background()
	srv := indexedWriteServer(t)
	cs := connectTo(t, srv)

	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names, covered []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	for _, c := range everyTool {
		covered = append(covered, c.tool)
	}
	for _, n := range names {
		if !slices.Contains(covered, n) {
			t.Errorf("tool %s is registered but has no entry in everyTool", n)
		}
	}
	for _, c := range everyTool {
		if !slices.Contains(names, c.tool) {
			t.Errorf("everyTool calls %s, which is not registered", c.tool)
		}
	}

	for _, c := range everyTool {
		res := call(t, cs, c.tool, c.args)
		if res.IsError {
			t.Errorf("%s(%v): tool error %s", c.tool, c.args, text(res))
			continue
		}
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil || res.StructuredContent == nil {
			t.Errorf("%s: no structured content (%v)", c.tool, err)
			continue
		}
		if !strings.Contains(string(raw), c.want) {
			t.Errorf("%s(%v) = %s, want it to contain %s", c.tool, c.args, raw, c.want)
		}
	}

	// The rename rewrote the link in the created note, and the engine
	// serves the new path at once.
	read := call(t, cs, "obsidian_read_note", map[string]any{"path": "Inbox/New Idea.md"})
	if got := text(read); !strings.Contains(got, "[[Web Crawler]]") {
		t.Errorf("link not rewritten by rename: %s", got)
	}
	found := call(t, cs, "obsidian_search", map[string]any{"query": "polite web crawler"})
	if got := text(found); !strings.Contains(got, "Projects/Web Crawler.md") {
		t.Errorf("search after rename: %s", got)
	}

	checkResourcesAndPrompts(t, cs)
}

func checkResourcesAndPrompts(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range res.Resources {
		uris[r.URI] = true
	}
	if !uris["obsidian://vault/info"] || !uris[NoteURI("Software/Go Concurrency.md")] {
		t.Errorf("resources/list lacks vault info or a note: %d resources", len(res.Resources))
	}
	for _, uri := range []string{"obsidian://vault/info", NoteURI("Software/Go Concurrency.md")} {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(got.Contents) == 0 || got.Contents[0].Text == "" {
			t.Errorf("read %s: %v", uri, err)
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) < 5 {
		t.Errorf("%d prompts, want the five of the toolbox", len(prompts.Prompts))
	}
	for _, p := range prompts.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "project"
			}
		}
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil || len(got.Messages) == 0 {
			t.Errorf("prompt %s: %v", p.Name, err)
		}
	}
}

// TestToolSelection applies --enabled-tools and --disabled-tools.
func TestToolSelection(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want []string // exactly these, when set
		not  []string // never these
	}{
		{"enabled only", Options{EnabledTools: []string{"obsidian_search", "obsidian_read_note"}}, []string{"obsidian_search", "obsidian_read_note"}, nil},
		{"disabled", Options{DisabledTools: []string{"obsidian_search_text", "obsidian_dataview_query"}}, nil, []string{"obsidian_search_text", "obsidian_dataview_query"}},
		{"disabled wins", Options{EnabledTools: []string{"obsidian_search", "obsidian_stats"}, DisabledTools: []string{"obsidian_stats"}}, []string{"obsidian_search"}, nil},
		{"write tools need write mode", Options{EnabledTools: []string{"obsidian_search", "obsidian_create_note"}}, []string{"obsidian_search"}, nil},
		{"write mode", Options{EnableWrite: true, EnabledTools: []string{"obsidian_create_note"}}, []string{"obsidian_create_note"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Version = "test"
			cs := connectTo(t, New(testEngine(t), tt.opts))
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			if tt.want != nil && !sameSet(got, tt.want) {
				t.Errorf("tools %v, want %v", got, tt.want)
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("%s registered although disabled", n)
				}
			}
			if tt.want == nil && len(got) == 0 {
				t.Error("no tools left")
			}
		})
	}
}

// TestNullArguments: `"arguments": null` means no arguments, for every
// tool that has none required.
func TestNullArguments(t *testing.T) {
	cs := connect(t)
	for _, tool := range []string{"obsidian_stats", "obsidian_list_tags", "obsidian_list_notes"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage("null")})
		if err != nil {
			t.Fatalf("%s with null arguments: protocol error %v", tool, err)
		}
		if res.IsError {
			t.Errorf("%s with null arguments: %s", tool, text(res))
		}
	}
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}

// TestReadRefusesLinksOut: a note or folder symlinked to a file outside the
// vault is never read, whether the snapshot knows it or not; the fixture's
// NFD-named file on disk is found from its NFC path.
func TestReadRefusesLinksOut(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	outside := t.TempDir()
	writeFile(t, outside, "secret.md", "# Secret\n\nTOP-SECRET-TOKEN\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "Leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "LeakDir")); err != nil {
		t.Fatal(err)
	}
	nfd := norm.NFD.String("Café.md") // as macOS names it
	writeFile(t, root, nfd, "# Café\n\nloaded\n")
	cs := connectTo(t, New(engineAt(t, root, time.Time{}, vault.Options{}), Options{Version: "test"}))
	writeFile(t, root, nfd, "# Café\n\nedited after load\n")
	// A note added after load exists only on disk: read through readLive.
	writeFile(t, root, "Fresh.md", "# Fresh\n\nwritten after load\n")
	for _, p := range []string{"Leak.md", "LeakDir/secret.md", "Leak", "LeakDir/secret"} {
		res := call(t, cs, "obsidian_read_note", map[string]any{"path": p})
		if got := text(res); !res.IsError || strings.Contains(got, "TOP-SECRET") {
			t.Errorf("read %s: IsError=%v %q", p, res.IsError, got)
		}
		if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: NoteURI(p)}); err == nil {
			t.Errorf("resource %s was read", p)
		}
	}
	if got := text(call(t, cs, "obsidian_read_note", map[string]any{"path": "Fresh"})); !strings.Contains(got, "written after load") {
		t.Errorf("note created after load not read: %s", got)
	}
	if got := text(call(t, cs, "obsidian_read_note", map[string]any{"path": norm.NFC.String("Café.md")})); !strings.Contains(got, "edited after load") {
		t.Errorf("NFD-named file by its NFC path: %s", got)
	}
}
