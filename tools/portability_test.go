package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
