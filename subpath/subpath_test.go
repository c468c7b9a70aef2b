package subpath

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func loadNote(t *testing.T, body string) *vault.Note {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return snap.Note("n.md")
}

func TestHeading(t *testing.T) {
	n := loadNote(t, "---\na: 1\n---\n# Top\nintro\n## Part: one\ntext one\n### Deep\ndeep text\n## Two\ntext two\n# Other\n## Deep\nother deep\n")
	for _, tt := range []struct {
		sub      string
		wantLine int // 0: not found
		text     string
	}{
		{"top", 4, "# Top\nintro\n## Part: one\ntext one\n### Deep\ndeep text\n## Two\ntext two"},
		{"Part one", 6, "## Part: one\ntext one\n### Deep\ndeep text"}, // ':' is dropped from heading links
		{"Deep", 8, "### Deep\ndeep text"},
		{"Other#Deep", 13, "## Deep\nother deep\n"},
		{"Two#Deep", 13, "## Deep\nother deep\n"}, // a nested path: Deep after Two
		{"Missing", 0, ""},
		{"Other#Top", 0, ""},
	} {
		h, ok := Heading(n.Headings, tt.sub)
		if ok != (tt.wantLine > 0) || h.Line != tt.wantLine {
			t.Errorf("Heading(%q) = line %d (found %v), want line %d", tt.sub, h.Line, ok, tt.wantLine)
			continue
		}
		if ok {
			if got := SectionText(n, h); got != tt.text {
				t.Errorf("SectionText(%q) = %q, want %q", tt.sub, got, tt.text)
			}
		}
	}
}

func TestBlockText(t *testing.T) {
	n := loadNote(t, "# T\nfirst line\nsecond line ^para\n\n- one\n- two ^item\n\n| a |\n| - |\n\n^table\n")
	for _, tt := range []struct{ id, want string }{
		{"para", "first line\nsecond line"},
		{"ITEM", "- two"},
		{"table", "| a |\n| - |"},
	} {
		b, ok := Block(n.Blocks, tt.id)
		if !ok {
			t.Errorf("Block(%q) not found", tt.id)
			continue
		}
		if got := BlockText(n, b); got != tt.want {
			t.Errorf("BlockText(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	if _, ok := Block(n.Blocks, "none"); ok {
		t.Error("a missing block id was found")
	}
}
