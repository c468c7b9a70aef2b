package search_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestUpdateEqualsNew changes a vault at random and checks after every
// batch that the updated engine answers exactly as one built anew from
// the files on disk: same notes, links, backlinks, tags, hits and scores.
func TestUpdateEqualsNew(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	vaults := map[string]func(t *testing.T) string{
		"fixture": func(t *testing.T) string { return vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")) },
		"generated": func(t *testing.T) string {
			root := t.TempDir()
			vaulttest.Generate(t, root, 600, 7)
			return root
		},
	}
	for name, mk := range vaults {
		seeds := []uint64{11, 12, 13}
		if raceEnabled && name == "generated" {
			// One goroutine applies and compares: under -race one seed
			// of the generated vault runs the same code as three.
			seeds = seeds[:1]
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				root := mk(t)
				live := loadEngine(t, root, an)
				m := vaulttest.NewMutator(t, root, seed)
				stale := 0 // batches after which the old engine differed: the comparison has teeth
				for batch := range 15 {
					prev := live
					var paths []string
					for range 1 + batch%5 {
						paths = append(paths, m.Step()...)
					}
					live = applyPaths(t, live, paths)
					want := loadEngine(t, root, an)
					if diff := enginetest.Diff(ctx, live, want, enginetest.Queries); diff != "" {
						t.Fatalf("batch %d (changed %q): %s", batch, paths, diff)
					}
					if enginetest.Diff(ctx, prev, want, enginetest.Queries) != "" {
						stale++
					}
				}
				if stale < 10 {
					t.Fatalf("the engine before a batch differed from the new files after only %d of 15 batches", stale)
				}
			})
		}
	}
}
