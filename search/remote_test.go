package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestRemoteEmbeddings checks that an engine says when query text leaves
// the machine: only for a remote model's alias.
func TestRemoteEmbeddings(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Garage.md", "# Garage\n\nMy car needs new tyres.\n")
	ctx := context.Background()
	snap, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	noIndex, err := New(ctx, snap, analysis.New(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := noIndex.RemoteEmbeddings(); got != "" {
		t.Fatalf("TF-IDF only: RemoteEmbeddings = %q", got)
	}
	tests := []struct{ alias, want string }{
		{"toy", ""},
		{"potion-base-8M", ""},
		{"ollama:nomic-embed-text", "test:a/12"},
		{"openai:text-embedding-3-small", "test:a/12"},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "ix.db"), index.NewSettings(snap.Root, false, chunk.DefaultOptions), false)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			src := index.SnapshotSource(snap)
			if _, err := ix.Sync(ctx, src, nil); err != nil {
				t.Fatal(err)
			}
			m := &embedtest.Model{Name: "a"}
			if _, err := ix.Vectors().Build(ctx, src, m, tt.alias, 0, nil); err != nil {
				t.Fatal(err)
			}
			e, err := New(ctx, snap, analysis.New(), Options{Index: ix, Embedder: m, EmbedderAlias: tt.alias})
			if err != nil {
				t.Fatal(err)
			}
			if e.dense() == nil {
				t.Fatal("embeddings not loaded")
			}
			if got := e.RemoteEmbeddings(); got != tt.want {
				t.Fatalf("RemoteEmbeddings = %q, want %q", got, tt.want)
			}
		})
	}
}
