package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestIndexRebuildsDamageItsSyncMeets: damage the open-time check cannot
// see (FTS5 blocks garbled) met by `index`'s own sync (every note edited,
// so FTS5 merges the garbled segments) is rebuilt from the vault, said in
// one line, instead of failing with "run --rebuild": serve rebuilds the
// same damage by itself. The index left equals a fresh one.
func TestIndexRebuildsDamageItsSyncMeets(t *testing.T) {
	bin := buildBinary(t)
	root := vaulttest.Copy(t, fixtureVault)
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", ixFile)
	servicetest.GarbleFTS(t, ixFile)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteString("\nedited while the index was damaged\n")
		return errors.Join(err, f.Close())
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "index", "--vault", root, "--index-file", ixFile).CombinedOutput()
	if err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "rebuilding the index: damaged"); n != 1 {
		t.Fatalf("said %d times that it rebuilt the damaged index:\n%s", n, out)
	}
	clean := filepath.Join(t.TempDir(), "clean.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", clean)
	checkIndex(t, root, ixFile) // sound, and not rebuilt again
	if got, want := fixtureHits(t, root, ixFile), fixtureHits(t, root, clean); got != want || want == "" {
		t.Fatalf("the rebuilt index answers\n%s\na clean one\n%s", got, want)
	}
}

// fixtureHits renders the BM25 hits of the fixture's topics in the index
// at path.
func fixtureHits(t *testing.T, root, path string) string {
	t.Helper()
	real, _ := vault.RealRoot(root)
	ix, err := index.Open(context.Background(), path, index.NewSettings(real, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b strings.Builder
	for _, q := range damageQueries {
		err := ix.BM25().Search(context.Background(), q, 20, index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}, func(h index.Hit) bool {
			fmt.Fprintf(&b, "%s %s#%d %.6f\n", q, h.Path, h.Chunk, h.Score)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}
