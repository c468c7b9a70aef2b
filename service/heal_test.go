package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestHealKeepsPrivacy: damage only a query finds (FTS5 blocks garbled,
// quick_check passes) makes an open vault rebuild the index in the background.
// The rebuilt file follows the privacy rules as `index` does: an excluded
// note's path and text are in none of the index files.
func TestHealKeepsPrivacy(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
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
	cfg := testConfig(t, root, ixFile)
	mustLoad(t, cfg).Close()
	servicetest.GarbleFTS(t, ixFile)
	l := freshLoad(t, cfg)
	if l.Index() == nil || l.Index().Rebuilt != "" {
		t.Fatalf("the open-time check saw the blob damage: this test needs damage only a query finds")
	}
	params := index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}
	var qerr error
	for _, q := range []string{"photosynthesis chlorophyll light", "sourdough hydration", "garden tomato", "python graph search", "levain"} {
		if qerr = l.Index().BM25().Search(ctx, q, 20, params, func(index.Hit) bool { return true }); qerr != nil {
			break
		}
	}
	if !index.IsCorrupt(qerr) {
		t.Fatalf("no query met the damage: %v", qerr)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := l.Index().Health().WaitHealed(wctx); err != nil || l.Index().Health().Damaged() != nil {
		t.Fatalf("not healed: %v %v", err, l.Index().Health().Damaged())
	}
	files, err := l.Index().Files(ctx)
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
