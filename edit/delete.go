package edit

import (
	"bytes"
	"fmt"
	"path"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Delete removes the note at rel, provided its current content is still
// old (else ErrChanged, and the file stays). Like every write it refuses
// symlinks and paths leaving the vault; the folder is kept even when it
// becomes empty.
func Delete(root, rel string, old []byte) error {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	loc, err := locate(fsys, rel, false)
	if err != nil {
		return err
	}
	cur, _, err := readRegular(fsys, loc.disk, rel, MaxFileSize)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := fsys.Remove(loc.disk); err != nil {
		return fmt.Errorf("delete %s: %w", rel, err)
	}
	fsys.SyncDir(path.Dir(loc.disk))
	return nil
}
