package enginetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Indexed builds the product's default engine over snap, offline: a new
// SQLite index in a temporary folder (closed when the test ends), synced,
// with the built-in model's vectors, so TF-IDF, BM25 and embeddings all
// take part.
func Indexed(ctx context.Context, t testing.TB, snap *vault.Snapshot, pdfs bool) *search.Engine {
	t.Helper()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), "ix.db"), index.NewSettings(snap.Root, pdfs, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	src := index.SnapshotSource(snap)
	if _, err := ix.Sync(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	model, err := models.Open(ctx, models.DefaultAlias, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Vectors().Build(ctx, src, model, models.DefaultAlias, 0, nil); err != nil {
		t.Fatal(err)
	}
	e, err := search.New(ctx, snap, analysis.New(), search.Options{Chunk: chunk.DefaultOptions, Index: ix,
		Embedder: model, EmbedderAlias: models.DefaultAlias})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
