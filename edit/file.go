package edit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// MaxFileSize is the largest file the editor reads and rewrites.
const MaxFileSize = 64 << 20

// ErrChanged reports a file that changed on disk between reading and
// writing it; it is not overwritten.
var ErrChanged = errors.New("changed on disk since it was read")

// ErrTooLarge reports a file above the size limit of a read.
var ErrTooLarge = vault.ErrTooLarge

// Read returns the content of the note at rel. A missing file is
// fs.ErrNotExist; a symlink anywhere on the way is ErrRefused.
func Read(root, rel string) ([]byte, error) {
	data, _, err := ReadFile(root, rel, MaxFileSize)
	return data, err
}

// ReadFile reads the regular file at the vault-relative path rel with the
// checks of every write (no symlink on the way, inside the vault, a
// file named in NFD found from its NFC path) and returns its metadata. A
// file above max bytes is ErrTooLarge and is not read.
func ReadFile(root, rel string, max int64) ([]byte, fs.FileInfo, error) {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return nil, nil, err
	}
	defer fsys.Close()
	return ReadFileFS(fsys, rel, max)
}

// ReadFileFS is ReadFile through an open vault handle.
func ReadFileFS(fsys *vault.FS, rel string, max int64) ([]byte, fs.FileInfo, error) {
	loc, err := locate(fsys, rel, false)
	if err != nil {
		return nil, nil, err
	}
	return readRegular(fsys, loc.disk, rel, max)
}

// readRegular reads a file that locate accepted through the vault handle,
// which checks that the file opened is the regular file that was looked
// at (not swapped for a symlink or a FIFO since).
func readRegular(fsys *vault.FS, disk, rel string, max int64) ([]byte, fs.FileInfo, error) {
	data, info, err := fsys.ReadFile(disk, max)
	switch {
	case errors.Is(err, vault.ErrNotRegular):
		return nil, nil, fmt.Errorf("%w: %s is not a regular file", ErrRefused, rel)
	case errors.Is(err, vault.ErrChanged):
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrChanged)
	case errors.Is(err, vault.ErrTooLarge):
		return nil, nil, err // names the file and both sizes
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	}
	return data, info, nil
}

// Create writes a note at rel, creating missing folders. An existing file
// is an fs.ErrExist error unless overwrite is set; then it is replaced
// atomically and keeps its permissions. New notes are 0644.
func Create(root, rel string, data []byte, overwrite bool) (overwritten bool, err error) {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return false, err
	}
	defer fsys.Close()
	loc, err := locate(fsys, rel, true)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			removeDirs(fsys, loc.created)
		}
	}()
	perm := fs.FileMode(0o644)
	if info, err := fsys.Lstat(loc.disk); err == nil {
		if !overwrite {
			return false, fmt.Errorf("%s already exists (set overwrite to replace it): %w", rel, fs.ErrExist)
		}
		perm, overwritten = info.Mode().Perm(), true
	}
	if err := writeAtomic(fsys, loc, data, perm, !overwritten); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	return overwritten, nil
}

// Replace atomically rewrites the note at rel with data, provided its
// current content is still old (else ErrChanged). The file keeps its
// permissions.
func Replace(root, rel string, old, data []byte) error {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	loc, err := locate(fsys, rel, false)
	if err != nil {
		return err
	}
	cur, info, err := readRegular(fsys, loc.disk, rel, MaxFileSize)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := writeAtomic(fsys, loc, data, info.Mode().Perm(), false); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// Move renames the note at from to to (one atomic rename), creating
// missing folders. An existing destination is an fs.ErrExist error unless
// overwrite is set; a destination that is the same file (a change of
// case on a case-insensitive file system) is not "existing".
func Move(root, from, to string, overwrite bool) (err error) {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	src, srcInfo, err := locateSource(fsys, from)
	if err != nil {
		return err
	}
	dst, err := locate(fsys, to, true)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			removeDirs(fsys, dst.created)
		}
	}()
	if err := refuseExisting(fsys, dst.disk, to, srcInfo, overwrite); err != nil {
		return err
	}
	if err := fsys.Rename(src.disk, dst.disk); err != nil {
		return fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	fsys.SyncDir(path.Dir(dst.disk))
	fsys.SyncDir(path.Dir(src.disk))
	return nil
}

// locateSource locates the existing note a move starts from.
func locateSource(fsys *vault.FS, rel string) (location, fs.FileInfo, error) {
	loc, err := locate(fsys, rel, false)
	if err != nil {
		return location{}, nil, err
	}
	info, err := fsys.Lstat(loc.disk)
	if err != nil {
		return location{}, nil, fmt.Errorf("%s: %w", rel, err)
	}
	return loc, info, nil
}

// refuseExisting is an fs.ErrExist error when a file other than the
// source (not merely the source under another case) exists at dst.
func refuseExisting(fsys *vault.FS, dst, rel string, src fs.FileInfo, overwrite bool) error {
	if info, err := fsys.Lstat(dst); err == nil && !os.SameFile(src, info) && !overwrite {
		return fmt.Errorf("%s already exists (set overwrite to replace it): %w", rel, fs.ErrExist)
	}
	return nil
}

// writeAtomic writes data to a temporary file next to the located file
// (0600, then chmod to perm), fsyncs it and renames it over the file. With
// noClobber the final step is a hard link that fails if the file appeared
// meanwhile (where the file system has no hard links, an existence check
// and a rename). The temporary file never survives an error.
//
// All of it happens in the folder locate checked, opened once: if that
// folder is renamed or swapped for a symlink meanwhile, the write either
// stays in it or fails (ErrChanged), and never lands anywhere else.
func writeAtomic(fsys *vault.FS, loc location, data []byte, perm fs.FileMode, noClobber bool) (err error) {
	dir, err := fsys.OpenDir(loc.dir)
	if err != nil {
		return err
	}
	defer dir.Close()
	if here, err := dir.Lstat("."); err != nil {
		return err
	} else if loc.dirInfo != nil && !os.SameFile(here, loc.dirInfo) {
		return fmt.Errorf("folder %s: %w", loc.dir, ErrChanged)
	}
	f, tmp, err := dir.CreateTemp("")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if noClobber {
		if err = publishNew(dir, tmp, loc.name); err != nil {
			return err
		}
	} else if err = dir.Rename(tmp, loc.name); err != nil {
		return err
	}
	dir.SyncDir("")
	return nil
}

// publishNew gives tmp the name name (in dir) only if it does not exist
// yet.
func publishNew(dir *vault.FS, tmp, name string) error {
	err := dir.Link(tmp, name)
	if err == nil {
		return dir.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared meanwhile: %w", name, fs.ErrExist)
	}
	// No hard links here (some network and FAT file systems).
	if _, statErr := dir.Lstat(name); statErr == nil {
		return fmt.Errorf("%s appeared meanwhile: %w", name, fs.ErrExist)
	}
	return dir.Rename(tmp, name)
}
