package edit

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// openFS opens the vault handle of root for the test.
func openFS(t *testing.T, root string) *vault.FS {
	t.Helper()
	fsys, err := vault.OpenFS(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// readRel reads a vault file, failing the test on error.
func readRel(t *testing.T, root, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// noTempFiles fails when a temporary file of the editor is left anywhere.
func noTempFiles(t *testing.T, root string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".enquire-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}
