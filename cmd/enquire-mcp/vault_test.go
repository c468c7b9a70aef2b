package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

func TestIndexFileInsideVaultRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outside, "link-to-vault")
	if err := os.Symlink(filepath.Join(root, "sub"), link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file   string
		refuse bool
	}{
		{filepath.Join(root, "index.db"), true},
		{filepath.Join(root, "sub", "index.db"), true},
		{filepath.Join(root, ".obsidian", "index.db"), true}, // not yet created
		{filepath.Join(link, "index.db"), true},              // symlinked into the vault
		{filepath.Join(outside, "index.db"), false},
		{root + "-sibling/index.db", false},
	}
	for _, tt := range tests {
		vf := &vaultFlags{indexFile: tt.file}
		_, err := vf.indexPath(real)
		if got := err != nil; got != tt.refuse {
			t.Errorf("indexPath(%s) error = %v, want refused %v", tt.file, err, tt.refuse)
		}
		if err != nil && !errors.Is(err, errUsage) {
			t.Errorf("indexPath(%s) error %v is not a usage error", tt.file, err)
		}
	}
}

// A failed index sync on reload turns BM25 off with the reason; TF-IDF
// keeps serving.
func TestReloadSurvivesIndexFailure(t *testing.T) {
	root := bigVault(t, 30)
	vf := &vaultFlags{vault: root, indexFile: filepath.Join(t.TempDir(), "ix.db"), staleDays: 30, maxFileSize: 1 << 20}
	ctx := context.Background()
	l, err := vf.load(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := l.Engine().Search(ctx, search.Request{Query: "unique7", Limit: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search before failure: %v, %d hits", err, len(res.Hits))
	}
	if _, ok := res.Hits[0].Signals[rankers.SignalBM25]; !ok {
		t.Fatalf("BM25 not used before failure: %+v", res.Hits[0].Signals)
	}
	if err := l.Index().Close(); err != nil { // every later sync fails
		t.Fatal(err)
	}
	eng, err := l.Reload(ctx, nil)
	if err != nil {
		t.Fatalf("Reload after index failure: %v", err)
	}
	res, err = eng.Search(ctx, search.Request{Query: "unique7", Limit: 5})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("search after failure: %v, %d hits", err, len(res.Hits))
	}
	if res.SignalErrors[rankers.SignalBM25] == "" {
		t.Errorf("BM25 failure not reported: %+v", res.SignalErrors)
	}
	if _, ok := res.Hits[0].Signals[rankers.SignalTFIDF]; !ok {
		t.Errorf("TF-IDF not serving: %+v", res.Hits[0].Signals)
	}
}
