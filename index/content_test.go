package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/chunk"
)

// TestContentKept: the content settings a caller keeps are read back with
// the index open and, read-only, without it; a missing file is
// os.ErrNotExist; a rebuild under other settings forgets them, and the
// PDF setting is what a reader falls back to.
func TestContentKept(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ix.db")
	if _, err := ReadContent(ctx, path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	steps := []struct {
		pdfs      bool
		keep      string // "" keeps nothing
		wantValue string
	}{
		{pdfs: false, keep: "", wantValue: ""},
		{pdfs: false, keep: `{"pdfs":false}`, wantValue: `{"pdfs":false}`},
		{pdfs: false, keep: "", wantValue: `{"pdfs":false}`}, // reopened: still kept
		{pdfs: true, keep: "", wantValue: ""},                // rebuilt for PDFs: forgotten
		{pdfs: true, keep: `{"pdfs":true}`, wantValue: `{"pdfs":true}`},
	}
	for i, st := range steps {
		ix, err := Open(ctx, path, NewSettings("/vault", st.pdfs, chunk.DefaultOptions), false)
		if err != nil {
			t.Fatal(err)
		}
		if st.keep != "" {
			if err := ix.KeepContent(st.keep); err != nil {
				t.Fatal(err)
			}
		}
		open, err := ix.Content(ctx)
		if err != nil || open != st.wantValue {
			t.Fatalf("step %d: open index holds %q (%v), want %q", i, open, err, st.wantValue)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := ReadContent(ctx, path)
		if err != nil || got != (Content{Value: st.wantValue, PDFs: st.pdfs}) {
			t.Fatalf("step %d: read %+v (%v), want %q with PDFs %v", i, got, err, st.wantValue, st.pdfs)
		}
	}
}
