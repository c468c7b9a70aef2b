package edit

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
