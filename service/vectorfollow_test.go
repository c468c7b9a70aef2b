package service

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestServePicksUpVectors: serve starts on an index without vectors and
// answers lexically; build-embeddings then writes them from another run,
// and serve's poll swaps them in without a restart: at once for the
// first change, then only once the vectors hold still for a poll (not
// at every batch), and not at all when nothing changed.
func TestServePicksUpVectors(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	l := mustLoad(t, testConfig(t, root, ixFile))
	defer l.Close()
	var swapped []*search.Engine
	l.OnSwap(func(e *search.Engine) { swapped = append(swapped, e) })
	l.vectors.sawEngine(l, l.eng)
	query := func() *search.Result {
		t.Helper()
		res, err := l.eng.Search(ctx, search.Request{Query: "sourdough"})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("search: %v, %+v", err, res)
		}
		return res
	}
	if res := query(); slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) {
		t.Fatalf("signals %q before any vector", res.SignalsUsed)
	}
	t0 := time.Unix(1e9, 0)
	if l.refreshVectors(ctx, t0) {
		t.Fatal("swapped with no vector written")
	}
	build := func() { buildVectors(t, root, ixFile) }
	build()
	if !l.refreshVectors(ctx, t0.Add(5*time.Second)) {
		t.Fatal("the first vectors were not picked up")
	}
	res := query()
	if !slices.Contains(res.SignalsUsed, rankers.SignalEmbeddings) || res.SignalErrors[rankers.SignalEmbeddings] != "" {
		t.Fatalf("after the build: signals %q, errors %v", res.SignalsUsed, res.SignalErrors)
	}
	if l.refreshVectors(ctx, t0.Add(10*time.Second)) {
		t.Fatal("swapped again with the vectors unchanged")
	}
	// A rebuild in progress: changed at this poll, so not read yet; read
	// once they hold still.
	clearVectors(t, root, ixFile)
	build()
	if l.refreshVectors(ctx, t0.Add(15*time.Second)) {
		t.Fatal("vectors read again while they were changing, within a minute of the last read")
	}
	if !l.refreshVectors(ctx, t0.Add(20*time.Second)) {
		t.Fatal("the rebuilt vectors were not picked up once they held still")
	}
	if len(swapped) != 2 || swapped[1] != l.eng {
		t.Fatalf("%d engines handed to the server, want 2 and the last one current", len(swapped))
	}
	if !strings.Contains(strings.Join(l.eng.Signals(), ","), rankers.SignalEmbeddings) {
		t.Fatalf("signals %q", l.eng.Signals())
	}
}

// buildVectors embeds every chunk of the index at ixFile with the
// built-in model after a sync with the files, as build-embeddings does.
func buildVectors(t *testing.T, root, ixFile string) {
	t.Helper()
	ctx := context.Background()
	ix := openTestIndex(t, root, ixFile)
	defer ix.Close()
	src, err := ix.DiskSource(ctx, vault.DefaultMaxFileSize, vault.PDFReader{})
	if err != nil {
		t.Fatal(err)
	}
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
}

// clearVectors deletes every vector of the index at ixFile, as
// clear-embeddings does.
func clearVectors(t *testing.T, root, ixFile string) {
	t.Helper()
	ix := openTestIndex(t, root, ixFile)
	defer ix.Close()
	if _, err := ix.Vectors().Clear(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// openTestIndex opens the index at ixFile of the vault at root, as a
// second process would while the vault is open.
func openTestIndex(t *testing.T, root, ixFile string) *index.Index {
	t.Helper()
	real, err := vault.RealRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(context.Background(), ixFile, index.NewSettings(real, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
