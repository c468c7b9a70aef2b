package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestHealKeepsPrivacy: damage only a query finds (FTS5 blocks garbled,
// quick_check passes) makes serve rebuild the index in the background.
// The rebuilt file follows the privacy rules as `index` does: an excluded
// note's path and text are in none of the index files.
func TestHealKeepsPrivacy(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, fixtureVault)
	if err := os.MkdirAll(filepath.Join(root, "Secret"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Secret", "Plans.md"), []byte("# Plans\n\nxylophonesecret photosynthesis chlorophyll light\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".enquire"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".enquire", "ignore"), []byte("Secret/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	vf := &vaultFlags{vault: root, indexFile: ixFile, maxFileSize: 1 << 20, noSelfTune: true}
	mustLoad(t, vf).Close()
	c, err := sqlite3.Open(ixFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`UPDATE fts_data SET block = randomblob(length(block)) WHERE id > 10`); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	l := freshLoad(t, vf)
	if l.ix == nil || l.ix.Rebuilt != "" {
		t.Fatalf("the open-time check saw the blob damage: this test needs damage only a query finds")
	}
	params := index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}
	var qerr error
	for _, q := range []string{"photosynthesis chlorophyll light", "sourdough hydration", "garden tomato", "python graph search", "levain"} {
		if qerr = l.ix.Search(ctx, q, 20, params, func(index.Hit) bool { return true }); qerr != nil {
			break
		}
	}
	if !index.IsCorrupt(qerr) {
		t.Fatalf("no query met the damage: %v", qerr)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := l.ix.WaitHealed(wctx); err != nil || l.ix.Damaged() != nil {
		t.Fatalf("not healed: %v %v", err, l.ix.Damaged())
	}
	files, err := l.ix.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f.Path, "Secret/") {
			t.Fatalf("the healed index lists the excluded %s", f.Path)
		}
	}
	for _, suffix := range []string{"", "-wal"} {
		raw, err := os.ReadFile(ixFile + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, secret := range []string{"xylophonesecret", "Secret/Plans"} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Fatalf("%s holds %q after the heal", filepath.Base(ixFile+suffix), secret)
			}
		}
	}
}

// TestIndexFinishesAHealItStarted: damage the open-time check cannot see
// (FTS5 blocks garbled) met by the queries `index` runs to choose the
// weights starts the same rebuild serve does; `index` waits for it and
// chooses again on the rebuilt file instead of exiting with the damage
// in place. The index it leaves passes SQLite's and FTS5's checks.
func TestIndexFinishesAHealItStarted(t *testing.T) {
	bin := buildBinary(t)
	root := vaulttest.Copy(t, fixtureVault)
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	runIndexCmd(t, bin, "--vault", root, "--index-file", ixFile)
	c, err := sqlite3.Open(ixFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`UPDATE fts_data SET block = randomblob(length(block)) WHERE id > 10`); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Without the saved state the weights' queries read FTS5, not a copy.
	if err := os.Remove(index.StatePath(ixFile)); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "index", "--vault", root, "--index-file", ixFile).CombinedOutput()
	if err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "damaged") {
		t.Fatalf("the damage was not met, so this test checks nothing:\n%s", out)
	}
	real, _ := vault.RealRoot(root)
	ix, err := index.Open(context.Background(), ixFile, index.NewSettings(real, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Check(context.Background()); err != nil {
		t.Fatalf("index left damaged: %v\n%s", err, out)
	}
}
