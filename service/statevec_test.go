package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestResumeVectors: the engine state carries the embedding vectors,
// and a resume takes them when the index's vectors are unchanged
// since (no read of the vector table). After the vectors were rebuilt,
// with a damaged state, or with files changed while no server ran, each
// start answers exactly as a start from the files on a copy of the index,
// and the saves that follow bring the vectors back into the state.
func TestResumeVectors(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	ixFile := filepath.Join(t.TempDir(), "vec.db")
	load := func(file string) *Vault {
		t.Helper()
		cfg := testConfig(t, root, file)
		cfg.KeepState = file == ixFile
		return mustLoad(t, cfg)
	}
	// fresh loads a copy of the index as it is now (without its state):
	// every vector read from the index.
	fresh := func() *Vault {
		t.Helper()
		data, err := os.ReadFile(ixFile)
		if err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(cp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l := load(cp)
		t.Cleanup(func() { l.Close() })
		return l
	}
	steps := []struct {
		name      string
		before    func()
		wantStart string
		wantWhy   string // why the saved vectors were not taken ("": taken)
	}{
		{name: "first start", wantStart: "files (no engine state)"},
		{name: "resumed", wantStart: "engine state, 0 files changed"},
		{name: "vectors rebuilt", before: func() { clearVectors(t, root, ixFile); buildVectors(t, root, ixFile) },
			wantStart: "engine state", wantWhy: "changed"},
		{name: "resumed again", wantStart: "engine state, 0 files changed"},
		{name: "note edited while down", before: func() {
			if err := os.WriteFile(filepath.Join(root, "Home.md"), []byte("# Home\n\nGarden soil, compost and seedlings.\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantStart: "engine state, 1 files changed"},
		{name: "after a save of changed vectors", wantStart: "engine state, 0 files changed", wantWhy: "none saved"},
		{name: "resumed once more", wantStart: "engine state, 0 files changed"},
		{name: "state cut short", before: func() {
			st := ixFile + ".engine"
			data, err := os.ReadFile(st)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(st, data[:len(data)-100], 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantStart: "files (state data damaged"},
		{name: "resumed after the damage", wantStart: "engine state, 0 files changed"},
	}
	buildVectors(t, root, ixFile)
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		want := fresh()
		l := load(ixFile)
		if !strings.HasPrefix(l.started, s.wantStart) || !strings.Contains(l.vecWhy, s.wantWhy) || (s.wantWhy == "") != (l.vecWhy == "") {
			t.Fatalf("%s: started from %q, vectors %q; want %q…, %q", s.name, l.started, l.vecWhy, s.wantStart, s.wantWhy)
		}
		if l.eng.Info().Vectors == 0 {
			t.Fatalf("%s: no vectors", s.name)
		}
		if d := enginetest.Diff(ctx, l.eng, want.eng, enginetest.Queries); d != "" {
			t.Fatalf("%s: started from %q: differs from a start from the files: %s", s.name, l.started, d)
		}
		if err := l.Close(); err != nil { // saves the state when a save is due
			t.Fatal(err)
		}
	}
}
