package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// read_note and resources/read serve the copy from the last load when the
// file cannot be read now, and say so (issue 10) instead of passing it off
// as the file.
func TestReadNoteSaysWhenStale(t *testing.T) {
	dir := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, dir, "Gone.md", "# Gone\n\nloaded once\n")
	writeFile(t, dir, "Grown.md", "# Grown\n\nsmall at load\n")
	writeFile(t, dir, "Fresh.md", "# Fresh\n\nunchanged\n")
	cs := connectTo(t, New(engineAt(t, dir, time.Now(), vault.Options{}), Options{Version: "test"}))
	if err := os.Remove(filepath.Join(dir, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "Grown.md", "# Grown\n\n"+strings.Repeat("big ", vault.DefaultMaxFileSize/4+1))
	for _, tt := range []struct{ path, stale, body string }{
		{"Gone.md", "deleted on disk; this is the copy from the last load", "loaded once"},
		{"Grown.md", "over the 5242880-byte size cap on disk now; this is the copy from the last load", "small at load"},
		{"Fresh.md", "", "unchanged"},
	} {
		out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": tt.path}))
		if out.Stale != tt.stale || !strings.Contains(out.Body, tt.body) {
			t.Errorf("read_note %s: stale %q, body %.40q; want stale %q", tt.path, out.Stale, out.Body, tt.stale)
		}
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: NoteURI(tt.path)})
		if err != nil {
			t.Fatalf("resources/read %s: %v", tt.path, err)
		}
		got, _ := res.Contents[0].Meta["stale"].(string)
		if got != tt.stale || !strings.Contains(res.Contents[0].Text, tt.body) {
			t.Errorf("resources/read %s: _meta.stale %q, text %.40q; want %q", tt.path, got, res.Contents[0].Text, tt.stale)
		}
	}
}
