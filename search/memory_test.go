package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestTypesFilter(t *testing.T) {
	e := testEngine(t)
	const q = "helix editor coffee oat milk sourdough starter"
	tests := []struct {
		name      string
		types     []string
		memories  bool // memories expected among the hits
		notes     bool
		wantError string
	}{
		{name: "default: both", memories: true, notes: true},
		{name: "both named", types: []string{"note", "memory"}, memories: true, notes: true},
		{name: "memories only", types: []string{"memory"}, memories: true},
		{name: "notes only", types: []string{"note"}, notes: true},
		{name: "unknown type", types: []string{"memory", "fact"}, wantError: `unknown type "fact"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Search(context.Background(), Request{Query: q, Limit: 50, Types: tt.types})
			if tt.wantError != "" {
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("err = %v, want ErrInvalid mentioning %s", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var mem, note bool
			for _, h := range res.Hits {
				switch h.ResultType {
				case ResultMemory:
					mem = true
					if !strings.HasPrefix(h.Path, "Memory/") || h.MemoryKey != strings.TrimSuffix(strings.TrimPrefix(h.Path, "Memory/"), ".md") {
						t.Errorf("memory hit %s with key %q", h.Path, h.MemoryKey)
					}
				case ResultNote:
					note = true
					if h.MemoryKey != "" {
						t.Errorf("note %s has a memory key %q", h.Path, h.MemoryKey)
					}
				default:
					t.Errorf("%s: result type %q", h.Path, h.ResultType)
				}
			}
			if mem != tt.memories || note != tt.notes {
				t.Fatalf("memories %v notes %v, want %v %v: %v", mem, note, tt.memories, tt.notes, hitPaths(res))
			}
		})
	}
}

func TestMemoryOf(t *testing.T) {
	for _, tt := range []struct {
		name     string
		n        vault.Note
		typ, key string
	}{
		{"memory with key", vault.Note{Path: "Memory/a.md", Kind: vault.KindMarkdown, Frontmatter: map[string]any{"type": "memory", "key": "coffee"}}, ResultMemory, "coffee"},
		{"type case-insensitive, key from name", vault.Note{Path: "x/My Fact.md", Kind: vault.KindMarkdown, Frontmatter: map[string]any{"Type": " Memory "}}, ResultMemory, "My Fact"},
		{"numeric key", vault.Note{Path: "Memory/7.md", Kind: vault.KindMarkdown, Frontmatter: map[string]any{"type": "memory", "key": 7}}, ResultMemory, "7"},
		{"other type", vault.Note{Path: "a.md", Kind: vault.KindMarkdown, Frontmatter: map[string]any{"type": "project", "key": "k"}}, ResultNote, ""},
		{"list type", vault.Note{Path: "a.md", Kind: vault.KindMarkdown, Frontmatter: map[string]any{"type": []any{"memory"}}}, ResultNote, ""},
		{"no frontmatter", vault.Note{Path: "a.md", Kind: vault.KindMarkdown}, ResultNote, ""},
		{"pdf", vault.Note{Path: "a.pdf", Kind: vault.KindPDF, Frontmatter: map[string]any{"type": "memory"}}, ResultNote, ""},
	} {
		if typ, key := MemoryOf(&tt.n); typ != tt.typ || key != tt.key {
			t.Errorf("%s: MemoryOf = %q %q, want %q %q", tt.name, typ, key, tt.typ, tt.key)
		}
	}
}
