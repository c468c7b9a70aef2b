package index

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/chunk"
)

// TestOpenRebuildsDamagedFile: Open turns every truncation and every
// overwritten page of an index into a rebuild (Rebuilt names the damage,
// a sync refills it to the clean index's hits), but never replaces a file
// it cannot prove its own: a destroyed header counts as ours only with an
// engine state saved next to it.
func TestOpenRebuildsDamagedFile(t *testing.T) {
	root, words := wordVault(t, 150)
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base.db")
	ix := open(t, root, base, false)
	syncDisk(t, ix)
	want := make([][]string, 5)
	for i := range want {
		var err error
		if want[i], err = hitKeys(ix, words[i]); err != nil || len(want[i]) == 0 {
			t.Fatalf("query %q: %v %v", words[i], want[i], err)
		}
	}
	ix.Close()
	good, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	page := int(binary.BigEndian.Uint16(good[16:18]))
	junk := func(off, n int) []byte {
		c := slices.Clone(good)
		for i := range n {
			c[off+i] = byte(i*131 + 7)
		}
		return c
	}
	const noState, withState, foreignState = 0, 1, 2
	cases := []struct {
		name    string
		file    []byte
		state   int
		healed  bool
		errText string // when not healed
	}{
		{"cut to one page", good[:page], noState, true, ""},
		{"cut to half", good[:len(good)/2], noState, true, ""},
		{"cut mid-page", good[:len(good)/2+page/3], noState, true, ""},
		{"one page short", good[:len(good)-page], noState, true, ""},
		{"page 1 b-tree header overwritten", junk(100, 12), noState, true, ""},
		{"page 2 overwritten", junk(page, page), noState, true, ""},
		{"middle page overwritten", junk(len(good)/page/2*page, page), noState, true, ""},
		{"last page overwritten", junk(len(good)-page, page), noState, true, ""},
		{"file header overwritten, engine state beside", junk(0, 100), withState, true, ""},
		{"file header overwritten, nothing beside", junk(0, 100), noState, false, "--rebuild"},
		{"file header overwritten, another program's file beside", junk(0, 100), foreignState, false, "--rebuild"},
		{"not a database at all", []byte(strings.Repeat("my own notes, not an index\n", 400)), noState, false, "--rebuild"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ix.db")
			if err := os.WriteFile(path, c.file, 0o600); err != nil {
				t.Fatal(err)
			}
			switch c.state {
			case withState:
				err = os.WriteFile(StatePath(path), []byte(stateMagic+"rest of a state"), 0o600)
			case foreignState:
				err = os.WriteFile(StatePath(path), []byte("some other engine\n"), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			ix, err := Open(ctx, path, NewSettings(root, false, chunk.Options{}), false)
			if !c.healed {
				if err == nil || !strings.Contains(err.Error(), c.errText) {
					t.Fatalf("open: %v, want an error naming %s", err, c.errText)
				}
				if got, _ := os.ReadFile(path); !slices.Equal(got, c.file) {
					t.Fatal("a file not proven an index was changed")
				}
				return
			}
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer ix.Close()
			if !strings.HasPrefix(ix.Rebuilt, "damaged: ") || strings.Contains(ix.Rebuilt, "\n") {
				t.Fatalf("Rebuilt = %q, want one line naming the damage", ix.Rebuilt)
			}
			syncDisk(t, ix)
			for i := range want {
				if got, err := hitKeys(ix, words[i]); err != nil || !slices.Equal(got, want[i]) {
					t.Fatalf("query %q after the rebuild: %v %v, want %v", words[i], got, err, want[i])
				}
			}
		})
	}
}
