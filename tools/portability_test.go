package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestPathsFromOtherDesktops runs, on Linux, the code paths that handle
// what Windows and macOS clients send and store: backslash separators and
// other letter case in a tool's path (Windows, and macOS's default
// case-insensitive volumes), drive-letter and UNC paths (refused like any
// path outside the vault), and file names that macOS stores decomposed
// (NFD) while the client types them composed (NFC).
func TestPathsFromOtherDesktops(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"Projects/Plan.md":                  "# Plan\n\nShip the crawler.\n",
		"Re\u0301sume\u0301s/Cafe\u0301.md": "# Café\n\nEspresso notes, see [[Plan]].\n",
	}
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	snap, err := vault.Load(ctx, root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, New(eng, Options{Version: "test"}))

	for _, tt := range []struct {
		name, path, want string
	}{
		{"windows separators", `Projects\Plan.md`, "Projects/Plan.md"},
		{"windows separators, other case, no extension", `projects\PLAN`, "Projects/Plan.md"},
		{"NFC path of an NFD file name", "R\u00e9sum\u00e9s/Caf\u00e9.md", "Résumés/Café.md"},
		{"NFD path, backslash, lower case", "re\u0301sume\u0301s\\cafe\u0301.md", "Résumés/Café.md"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_read_note", map[string]any{"path": tt.path})
			if res.IsError {
				t.Fatalf("read %q: %s", tt.path, text(res))
			}
			out := decode[ReadNoteOutput](t, res)
			// Paths are reported in NFC, the form clients compare with.
			if out.Path != tt.want {
				t.Fatalf("read %q: path %q, want %q", tt.path, out.Path, tt.want)
			}
		})
	}
	for _, p := range []string{`C:\Users\me\Vault\Projects\Plan.md`, `c:Projects\Plan.md`, `\\server\share\Plan.md`, `..\Projects\Plan.md`} {
		t.Run("refused "+p, func(t *testing.T) {
			res := call(t, cs, "obsidian_read_note", map[string]any{"path": p})
			if !res.IsError || !strings.Contains(text(res), "note not found") {
				t.Fatalf("read %q: IsError=%v %q, want note not found", p, res.IsError, text(res))
			}
		})
	}
	t.Run("NFC query finds the NFD-named note", func(t *testing.T) {
		out := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "espresso"}))
		if len(out.Matches) == 0 || out.Matches[0].Path != "Résumés/Café.md" {
			t.Fatalf("matches %+v", out.Matches)
		}
	})
	t.Run("backlinks of a note named by a Windows path", func(t *testing.T) {
		res := call(t, cs, "obsidian_get_backlinks", map[string]any{"path": `projects\plan.md`})
		if res.IsError || !strings.Contains(text(res), "Résumés/Café.md") {
			t.Fatalf("backlinks: IsError=%v %s", res.IsError, text(res))
		}
	})
}

// TestSchemasUseSingleTypes guards what the MCP Inspector's portability
// check (run in .ci/run) reports, without Node: no "type" array anywhere,
// and every property of every input and output schema says what it is.
func TestSchemasUseSingleTypes(t *testing.T) {
	srv := New(testEngine(t), Options{Version: "test", EnableWrite: true, Reload: func(context.Context, []string) (*search.Engine, error) { return testEngine(t), nil }})
	cs := connectTo(t, srv)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) < 20 {
		t.Fatalf("only %d tools listed", len(list.Tools))
	}
	var walk func(tool, path string, v any)
	walk = func(tool, path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if _, isList := m["type"].([]any); isList {
			t.Errorf("%s: type array at %s", tool, path)
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for name, p := range props {
				pm, _ := p.(map[string]any)
				_, typed := pm["type"]
				_, anyOf := pm["anyOf"]
				_, enum := pm["enum"]
				if !typed && !anyOf && !enum {
					t.Errorf("%s: property %s.%s has no type", tool, path, name)
				}
			}
		}
		for k, e := range m {
			switch x := e.(type) {
			case map[string]any:
				walk(tool, path+"."+k, x)
			case []any:
				for _, el := range x {
					walk(tool, path+"."+k, el)
				}
			}
		}
	}
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(map[string]any{"in": tool.InputSchema, "out": tool.OutputSchema})
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		walk(tool.Name, "", v)
	}
}

// TestAnyOfSchemasAcceptTheSameInputs: the anyOf forms accept what the
// type arrays did, and still refuse what they refused.
func TestAnyOfSchemasAcceptTheSameInputs(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		tool string
		args map[string]any
		ok   bool
	}{
		{"obsidian_search", map[string]any{"query": "bread", "filter_frontmatter": map[string]any{"tags": "cooking"}}, true},
		{"obsidian_search", map[string]any{"query": "bread", "filter_frontmatter": map[string]any{"year": 2024, "draft": false, "tags": []any{"a", 1, true}}}, true},
		{"obsidian_search", map[string]any{"query": "bread", "filter_frontmatter": map[string]any{"tags": map[string]any{"x": 1}}}, false},
		{"obsidian_search", map[string]any{"query": "bread", "filter_frontmatter": map[string]any{"tags": []any{[]any{"nested"}}}}, false},
		{"obsidian_list_notes", map[string]any{"filter_frontmatter": map[string]any{"status": []any{"active", "done"}}}, true},
		{"obsidian_list_notes", map[string]any{"filter_frontmatter": map[string]any{"status": nil}}, false},
		{"obsidian_frontmatter_search", map[string]any{"key": "year", "equals": 2024}, true},
		{"obsidian_frontmatter_search", map[string]any{"key": "draft", "equals": true}, true},
		{"obsidian_frontmatter_search", map[string]any{"key": "title", "contains": "sour"}, true},
		{"obsidian_frontmatter_search", map[string]any{"key": "title", "contains": true}, false},
		{"obsidian_frontmatter_search", map[string]any{"key": "title", "equals": []any{"x"}}, false},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		failed := err != nil || res.IsError
		if failed == tt.ok {
			t.Errorf("%s %v: failed=%v (err %v), want ok=%v", tt.tool, tt.args, failed, err, tt.ok)
		}
	}
}
