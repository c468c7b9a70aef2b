package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestServePicksUpVectors: serve starts on an index without vectors and
// answers lexically; build-embeddings then writes them from another run,
// and serve's poll swaps them in without a restart: at once for the
// first change, then only once the vectors hold still for a poll (not
// at every batch), and not at all when nothing changed.
func TestServePicksUpVectors(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "..", "testdata", "vault"))
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	l := mustLoad(t, &vaultFlags{vault: root, indexFile: ixFile, maxFileSize: 1 << 20})
	defer l.Close()
	var swapped []*search.Engine
	l.onSwap = func(e *search.Engine) { swapped = append(swapped, e) }
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
	build := func(args ...string) {
		t.Helper()
		args = append([]string{"build-embeddings", "--vault", root, "--index-file", ixFile, "--embedding-model", "builtin"}, args...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("build-embeddings: %s", stderr)
		}
	}
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
	if code, _, stderr := runCLI(t, "clear-embeddings", "--vault", root, "--index-file", ixFile); code != 0 {
		t.Fatal(stderr)
	}
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
