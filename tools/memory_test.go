package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

var memoryToolNames = []string{"obsidian_remember", "obsidian_forget"}

func TestMemoryToolsRegistration(t *testing.T) {
	for _, tt := range []struct {
		name          string
		opts          Options
		memory, write bool
	}{
		{"read-only", Options{}, false, false},
		{"memory alone", Options{EnableMemory: true}, true, false},
		{"write brings memory", Options{EnableWrite: true}, true, true},
		{"memory folder outside the vault", Options{EnableMemory: true, MemoryFolder: "../elsewhere"}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := New(testEngine(t), tt.opts).Registered()
			for _, n := range memoryToolNames {
				if slices.Contains(reg, n) != tt.memory {
					t.Errorf("%s registered = %v, want %v", n, !tt.memory, tt.memory)
				}
			}
			if slices.Contains(reg, "obsidian_create_note") != tt.write {
				t.Errorf("write tools registered = %v, want %v", !tt.write, tt.write)
			}
		})
	}
}

func TestMemoryFolder(t *testing.T) {
	for in, want := range map[string]string{"": "Memory", "Memory": "Memory", " AI/Memories/ ": "AI/Memories", `AI\Mem`: "AI/Mem"} {
		if got, err := MemoryFolder(in); err != nil || got != want {
			t.Errorf("MemoryFolder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../x", "a/../../b", "/etc", ".obsidian", "a/.git/b", "mem\nory"} {
		if got, err := MemoryFolder(bad); err == nil {
			t.Errorf("MemoryFolder(%q) = %q, want an error", bad, got)
		}
	}
}

// memoryServer serves a copy of the fixture (plus testdata/blend's notes
// in Ranking/) with only the memory tools,
// a clock that moves one hour per reading, and a Reload that re-reads the
// copy with the changed paths, as the CLI does.
func memoryServer(t *testing.T) (*mcp.ClientSession, string) {
	t.Helper()
	root := vaulttest.Copy(t, "../testdata/vault")
	vaulttest.AddFiles(t, "../testdata/blend", filepath.Join(root, "Ranking"))
	var tick atomic.Int64
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return start.Add(time.Duration(tick.Add(1)) * time.Hour) }
	load := func(ctx context.Context) (*search.Engine, error) {
		snap, err := vault.Load(ctx, root, vault.Options{})
		if err != nil {
			return nil, err
		}
		return search.New(ctx, snap, analysis.New(), search.Options{Now: clock})
	}
	e, err := load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := New(e, Options{Version: "test", EnableMemory: true, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return load(ctx)
	}})
	return connectTo(t, srv), root
}

// searchMemories returns the memories a lexical signal found for query;
// those that pseudo-relevance feedback alone brought in (through words
// of the first hits) are left out.
func searchMemories(t *testing.T, cs *mcp.ClientSession, query string) []SearchMatch {
	t.Helper()
	all := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": query, "types": []any{"memory"}})).Matches
	var lexical []SearchMatch
	for _, m := range all {
		if m.PerSignal.BM25 != nil || m.PerSignal.TFIDF != nil {
			lexical = append(lexical, m)
		}
	}
	return lexical
}

func TestRememberUpsertAndForget(t *testing.T) {
	cs, root := memoryServer(t)
	first := decode[RememberOutput](t, call(t, cs, "obsidian_remember", map[string]any{
		"key": "Favourite Tea", "fact": "Prefers jasmine tea, brewed for two minutes.", "tags": []any{"#preference", "drink"}, "source": "chat 2026-03-01"}))
	if first.Path != "Memory/Favourite Tea.md" || !first.Created || first.CreatedAt != first.UpdatedAt || first.RefreshError != "" {
		t.Fatalf("first remember = %+v", first)
	}
	note := fileText(t, root, first.Path)
	for _, want := range []string{"type: memory\n", "key: Favourite Tea\n", "importance: 5\n", "  - preference\n", "  - drink\n",
		"source: chat 2026-03-01\n", "created: \"" + first.CreatedAt, "---\nPrefers jasmine tea, brewed for two minutes.\n"} {
		if !strings.Contains(note, want) {
			t.Errorf("memory note lacks %q:\n%s", want, note)
		}
	}
	hits := searchMemories(t, cs, "jasmine tea")
	if len(hits) != 1 || hits[0].ResultType != "memory" || hits[0].MemoryKey != "Favourite Tea" {
		t.Fatalf("search after remember: %+v", hits)
	}

	// The user adds a property in Obsidian; an update by the same key
	// (another case) keeps it, keeps created and the tags, and replaces
	// the fact.
	p := filepath.Join(root, "Memory", "Favourite Tea.md")
	if err := os.WriteFile(p, []byte(strings.Replace(note, "type: memory\n", "type: memory\nmood: calm\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	second := decode[RememberOutput](t, call(t, cs, "obsidian_remember", map[string]any{"key": "favourite tea", "fact": "Now prefers oolong.", "importance": 9}))
	if second.Path != first.Path || second.Created || second.CreatedAt != first.CreatedAt || second.UpdatedAt == first.UpdatedAt {
		t.Fatalf("upsert = %+v (first %+v)", second, first)
	}
	note = fileText(t, root, first.Path)
	for _, want := range []string{"mood: calm\n", "importance: 9\n", "  - preference\n", "created: \"" + first.CreatedAt, "updated: \"" + second.UpdatedAt, "---\nNow prefers oolong.\n"} {
		if !strings.Contains(note, want) {
			t.Errorf("updated memory lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "jasmine") {
		t.Errorf("old fact kept:\n%s", note)
	}
	if hits := searchMemories(t, cs, "jasmine"); len(hits) != 0 {
		t.Errorf("old fact still found: %+v", hits)
	}
	if hits := searchMemories(t, cs, "oolong"); len(hits) != 1 || hits[0].Path != first.Path {
		t.Errorf("new fact not found: %+v", hits)
	}
	// A memory is a note for every other tool.
	if got := text(call(t, cs, "obsidian_read_note", map[string]any{"path": first.Path})); !strings.Contains(got, "oolong") {
		t.Errorf("read_note of a memory: %s", got)
	}

	gone := decode[ForgetOutput](t, call(t, cs, "obsidian_forget", map[string]any{"key": "FAVOURITE TEA"}))
	if !gone.Deleted || gone.Path != first.Path {
		t.Fatalf("forget = %+v", gone)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("memory file still there: %v", err)
	}
	if hits := searchMemories(t, cs, "oolong"); len(hits) != 0 {
		t.Errorf("forgotten memory still found: %+v", hits)
	}
}

// TestMemoryToolsBadInput: each bad call is a clear tool error and
// writes nothing.
func TestMemoryToolsBadInput(t *testing.T) {
	cs, root := memoryServer(t)
	if err := os.WriteFile(filepath.Join(root, "Memory", "plain.md"), []byte("# A plain note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, root)
	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"key with ..", "obsidian_remember", map[string]any{"key": "../x", "fact": "f"}, "must not contain path characters"},
		{"key with a slash", "obsidian_remember", map[string]any{"key": "a/b", "fact": "f"}, "must not contain path characters"},
		{"key with a backslash", "obsidian_remember", map[string]any{"key": `a\b`, "fact": "f"}, "must not contain path characters"},
		{"key with a colon", "obsidian_remember", map[string]any{"key": "c:x", "fact": "f"}, "must not contain path characters"},
		{"hidden key", "obsidian_remember", map[string]any{"key": ".env", "fact": "f"}, "must not start with a dot"},
		{"blank key", "obsidian_remember", map[string]any{"key": "   ", "fact": "f"}, "key is empty"},
		{"key with a newline", "obsidian_remember", map[string]any{"key": "a\nb", "fact": "f"}, "control characters"},
		{"long key", "obsidian_remember", map[string]any{"key": strings.Repeat("k", 121), "fact": "f"}, "key"},
		{"oversize fact", "obsidian_remember", map[string]any{"key": "big", "fact": strings.Repeat("x", MaxFactBytes+1)}, "fact"},
		{"blank fact", "obsidian_remember", map[string]any{"key": "k", "fact": "  \n"}, "fact is empty"},
		{"importance 11", "obsidian_remember", map[string]any{"key": "k", "fact": "f", "importance": 11}, "importance"},
		{"tag with a space", "obsidian_remember", map[string]any{"key": "k", "fact": "f", "tags": []any{"two words"}}, "tag"},
		{"key of a plain note", "obsidian_remember", map[string]any{"key": "plain", "fact": "f"}, "is not a memory"},
		{"forget an unknown key", "obsidian_forget", map[string]any{"key": "never-remembered"}, "no memory with key"},
		{"forget a plain note", "obsidian_forget", map[string]any{"key": "plain"}, "is not a memory"},
		{"forget ../x", "obsidian_forget", map[string]any{"key": "../x"}, "must not contain path characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantWriteError(t, call(t, cs, tt.tool, tt.args), tt.want)
			sameTree(t, root, before)
		})
	}
}

// TestSearchBlendAndTypesArguments: the search contract's new arguments
// through MCP.
func TestSearchBlendAndTypesArguments(t *testing.T) {
	cs, _ := memoryServer(t)
	for _, tt := range []struct {
		name string
		args map[string]any
		want string // error text; "" = success
	}{
		{"recency below 0", map[string]any{"query": "magnetar", "recency_weight": -0.5}, "recency_weight"},
		{"recency above 1", map[string]any{"query": "magnetar", "recency_weight": 1.5}, "recency_weight"},
		{"importance above 1", map[string]any{"query": "magnetar", "importance_weight": 3}, "importance_weight"},
		{"weights summing above 1", map[string]any{"query": "magnetar", "recency_weight": 0.7, "importance_weight": 0.7}, "must not exceed 1"},
		{"unknown type", map[string]any{"query": "magnetar", "types": []any{"fact"}}, "types"},
		{"type not a string", map[string]any{"query": "magnetar", "types": []any{3}}, "types"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_search", tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
	// Without weights the parts are absent (the output is as before);
	// with one, every hit has all three.
	plain := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "magnetar flare"}))
	blended := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "magnetar flare", "importance_weight": 0.5, "types": []any{"note"}}))
	if len(plain.Matches) == 0 || len(blended.Matches) == 0 {
		t.Fatal("no matches")
	}
	for _, m := range plain.Matches {
		if m.Relevance != nil || m.Recency != nil || m.Importance != nil || m.ResultType == "" {
			t.Fatalf("unweighted match %+v", m)
		}
	}
	for _, m := range blended.Matches {
		if m.Relevance == nil || m.Recency == nil || m.Importance == nil || m.ResultType != "note" {
			t.Fatalf("weighted match %+v", m)
		}
	}
	if blended.Matches[0].Path != "Ranking/Magnetar Survey High.md" {
		t.Errorf("importance 9 should lead: %s", blended.Matches[0].Path)
	}
}
