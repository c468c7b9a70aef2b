package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// TestLiveVaultModel: live changes embed the new chunks with the word
// vectors learned at start (the model is not refit, so its ID stays), and
// no chunk is left without a vector.
func TestLiveVaultModel(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "..", "testdata", "vault"))
	vf := &vaultFlags{vault: root, indexFile: filepath.Join(t.TempDir(), "live.db"), maxFileSize: 1 << 20, buildEmbeddings: "vault"}
	lv := startLiveWith(t, vf, watch.Options{Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	model, ok := lv.Engine().EmbeddingModel()
	if !ok {
		t.Fatal("no embeddings signal at start")
	}
	id := model.ID
	m := vaulttest.NewMutator(t, root, 7)
	for batch := range 3 {
		for range 3 {
			m.Step()
		}
		lv.Settle(t, root, batch)
		if got, _ := lv.Engine().EmbeddingModel(); got.ID != id {
			t.Fatalf("batch %d: model %s, want %s (live changes must not refit)", batch, got.ID, id)
		}
		missing, err := lv.l.Index().Vectors().Missing(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(missing) > 0 {
			t.Fatalf("batch %d: %d chunks without a vector, e.g. %+v", batch, len(missing), missing[0])
		}
	}
}
