package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestSelfTuneKeptInMeta: the kept choice survives a reopen and a sync,
// and a rebuild drops it (the choice is then made again).
func TestSelfTuneKeptInMeta(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	writeVault(t, root, map[string]string{"a.md": "alpha words"})
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	if v, err := ix.SelfTune(ctx); err != nil || v != "" {
		t.Fatalf("new index: %q, %v", v, err)
	}
	if err := ix.KeepSelfTune(`{"kept": 1}`); err != nil {
		t.Fatal(err)
	}
	syncWith(t, ix, nil)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	real, err := vault.RealRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		rebuild bool
		want    string
	}{
		{"reopened", false, `{"kept": 1}`},
		{"rebuilt", true, ""},
		{"reopened after the rebuild", false, ""},
	} {
		ix, err := Open(ctx, file, NewSettings(real, false, chunk.Options{}), tc.rebuild)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ix.SelfTune(ctx)
		ix.Close()
		if err != nil || v != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, v, err, tc.want)
		}
	}
}
