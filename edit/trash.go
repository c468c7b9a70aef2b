package edit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TrashFolder is the vault's own trash, where Obsidian's "Move to
// Obsidian trash" puts deleted files. The walk skips it, so a trashed note
// leaves search at once, and a person can still restore it.
const TrashFolder = ".trash"

// maxTrashNames bounds the search for a free name in the trash.
const maxTrashNames = 1000

// Trash moves the note at rel into TrashFolder, provided its content is
// still old (else ErrChanged, and nothing moves), and returns its path
// there. A name already in the trash gets " 1", " 2", … before its
// extension. Like every write it refuses symlinks on the way, and a
// TrashFolder that is a symlink or a file.
func Trash(root, rel string, old []byte) (string, error) {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return "", err
	}
	defer fsys.Close()
	src, _, err := locateSource(fsys, rel)
	if err != nil {
		return "", err
	}
	cur, _, err := readRegular(fsys, src.disk, rel, MaxFileSize)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(cur, old) {
		return "", fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := trashFolder(fsys); err != nil {
		return "", err
	}
	name := path.Base(src.disk)
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := range maxTrashNames {
		dst := path.Join(TrashFolder, name)
		if i > 0 {
			dst = path.Join(TrashFolder, stem+" "+strconv.Itoa(i)+ext)
		}
		if _, err := fsys.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := fsys.Rename(src.disk, dst); err != nil {
			return "", fmt.Errorf("move %s to the trash: %w", rel, err)
		}
		fsys.SyncDir(TrashFolder)
		fsys.SyncDir(path.Dir(src.disk))
		return dst, nil
	}
	return "", fmt.Errorf("move %s to the trash: %d files of that name are there already; empty the trash", rel, maxTrashNames)
}

// trashFolder makes sure TrashFolder is a real folder in the vault.
func trashFolder(fsys *vault.FS) error {
	info, err := fsys.Lstat(TrashFolder)
	if errors.Is(err, fs.ErrNotExist) {
		if err := fsys.Mkdir(TrashFolder, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", TrashFolder, err)
		}
		info, err = fsys.Lstat(TrashFolder)
	}
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", TrashFolder, err)
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink", ErrRefused, TrashFolder)
	case !info.IsDir():
		return fmt.Errorf("%w: %s is not a folder", ErrRefused, TrashFolder)
	}
	return nil
}
