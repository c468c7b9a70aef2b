package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func TestInspect(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, "../testdata/vault")
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	st := syncDisk(t, ix)
	build(t, ix, &embedtest.Model{Name: "toy"}, 0)

	// Read while the index is open (as doctor does beside a running server).
	info, err := Inspect(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := vault.RealRoot(root)
	if !info.Ours || !info.Current || info.SchemaVersion != SchemaVersion || info.Settings.Vault != real || info.Settings.PDFs {
		t.Fatalf("identity: %+v", info)
	}
	if info.Files != st.Added || info.Chunks != st.Chunks || len(info.Stamps) != info.Files || info.Bytes <= 0 {
		t.Fatalf("counts: files %d (synced %d), chunks %d (synced %d), stamps %d, bytes %d", info.Files, st.Added, info.Chunks, st.Chunks, len(info.Stamps), info.Bytes)
	}
	if info.EmbeddingAlias != "toy" || info.EmbeddingDim == 0 || info.Vectors == 0 {
		t.Fatalf("embeddings: alias %q dim %d vectors %d", info.EmbeddingAlias, info.EmbeddingDim, info.Vectors)
	}

	n, err := ix.Vectors().Clear(ctx)
	if err != nil || n == 0 {
		t.Fatalf("Vectors.Clear = %d, %v", n, err)
	}
	if id, _, err := ix.Vectors().Model(ctx); err != nil || id != "" || vectorCount(t, ix) != 0 {
		t.Fatalf("after clear: model %q, %d vectors, err %v", id, vectorCount(t, ix), err)
	}
	if after := search(t, ix, "kubernetes"); len(after) == 0 {
		t.Fatal("clearing embeddings lost the text index")
	}
	ix.Close()
	// The files kept next to the index go with it.
	for _, extra := range []string{StatePath(file), VaultModelPath(file)} {
		if err := os.WriteFile(extra, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	freed, err := Remove(ctx, file)
	if err != nil || freed <= 0 {
		t.Fatalf("Remove = %d, %v", freed, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm", ".engine", ".words"} {
		if _, err := os.Stat(file + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s%s still there: %v", file, suffix, err)
		}
	}
	if _, err := Inspect(ctx, file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Inspect of a removed file: %v", err)
	}
}

func TestInspectAndRemoveRefuseForeignFiles(t *testing.T) {
	ctx := context.Background()
	foreign := filepath.Join(t.TempDir(), "foreign.db")
	c, err := sqlite3.Open(foreign)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`CREATE TABLE mine(x); INSERT INTO mine VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	info, err := Inspect(ctx, foreign)
	if err != nil || info.Ours {
		t.Fatalf("foreign: %+v, %v", info, err)
	}
	if _, err := Remove(ctx, foreign); !errors.Is(err, ErrForeign) {
		t.Fatalf("Remove(foreign) = %v, want ErrForeign", err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Fatalf("foreign file touched: %v", err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a database, not even close, really not"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Inspect(ctx, garbage); err == nil {
		t.Fatal("Inspect(garbage): no error")
	}
	if _, err := Remove(ctx, garbage); err == nil {
		t.Fatal("Remove(garbage): removed a file it could not identify")
	}
}

// TestInspectCountsChunksSharingAVector: two identical chunks share one
// vector, and both have it (doctor's "N of M chunks have vectors").
func TestInspectCountsChunksSharingAVector(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"A", "B"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "Same.md"), []byte("# Heading\n\nThe very same passage twice.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "Other.md"), []byte("A different passage.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, file, false)
	syncDisk(t, ix)
	build(t, ix, &embedtest.Model{Name: "toy"}, 0)
	if n := vectorCount(t, ix); n == 0 {
		t.Fatal("no vectors built")
	}
	info, err := Inspect(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Chunks < 3 || info.Vectors != info.Chunks {
		t.Fatalf("%d of %d chunks have vectors, want all", info.Vectors, info.Chunks)
	}
}
