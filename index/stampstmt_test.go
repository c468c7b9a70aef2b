package index

import (
	"context"
	"path/filepath"
	"testing"
)

// TestStampStatementsReleased: searches from memory keep a prepared stamp
// query per read connection; Close must release them (SQLite refuses to
// close a connection with open statements) and report no error.
func TestStampStatementsReleased(t *testing.T) {
	_, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	syncDisk(t, ix)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := ix.bm25.used.Load()
	for range 6 { // more searches than read connections
		if _, fromCopy := compareWithReference(t, ix, []string{"garden", "sourdough"}); fromCopy != 2 {
			t.Fatalf("%d of 2 searches from memory", fromCopy)
		}
	}
	if ix.bm25.used.Load() == before {
		t.Fatal("no search answered from memory")
	}
	ix.bm25.stmts.mu.Lock()
	n := len(ix.bm25.stmts.m)
	ix.bm25.stmts.mu.Unlock()
	if n == 0 || n > cap(ix.readers) {
		t.Fatalf("%d prepared stamp queries for %d read connections", n, cap(ix.readers))
	}
	if err := ix.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if len(ix.bm25.stmts.m) != 0 {
		t.Fatalf("%d stamp queries left after Close", len(ix.bm25.stmts.m))
	}
}
