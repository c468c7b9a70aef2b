package edit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxFileSize is the largest file the editor reads and rewrites.
const MaxFileSize = 64 << 20

// ErrChanged reports a file that changed on disk between reading and
// writing it; it is not overwritten.
var ErrChanged = errors.New("changed on disk since it was read")

// ErrTooLarge reports a file above the size limit of a read.
var ErrTooLarge = errors.New("file too large")

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
	abs, _, err := locate(root, rel, false)
	if err != nil {
		return nil, nil, err
	}
	return readRegular(abs, rel, max)
}

// readRegular reads a file that locate accepted, checking that the file
// opened is the one that was checked (not swapped for a symlink since).
func readRegular(abs, rel string, max int64) ([]byte, fs.FileInfo, error) {
	before, err := os.Lstat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	}
	if !before.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s is not a regular file", ErrRefused, rel)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", rel, err)
	}
	if !os.SameFile(before, opened) {
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if opened.Size() > max {
		return nil, nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", rel, ErrTooLarge, opened.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if int64(len(data)) > max { // grew while we read
		return nil, nil, fmt.Errorf("%s: %w (limit %d)", rel, ErrTooLarge, max)
	}
	return data, opened, nil
}

// Create writes a note at rel, creating missing folders. An existing file
// is an fs.ErrExist error unless overwrite is set; then it is replaced
// atomically and keeps its permissions. New notes are 0644.
func Create(root, rel string, data []byte, overwrite bool) (overwritten bool, err error) {
	abs, created, err := locate(root, rel, true)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			removeDirs(created)
		}
	}()
	perm := fs.FileMode(0o644)
	if info, err := os.Lstat(abs); err == nil {
		if !overwrite {
			return false, fmt.Errorf("%s already exists (set overwrite to replace it): %w", rel, fs.ErrExist)
		}
		perm, overwritten = info.Mode().Perm(), true
	}
	if err := writeAtomic(abs, data, perm, !overwritten); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	return overwritten, nil
}

// Replace atomically rewrites the note at rel with data, provided its
// current content is still old (else ErrChanged). The file keeps its
// permissions.
func Replace(root, rel string, old, data []byte) error {
	abs, _, err := locate(root, rel, false)
	if err != nil {
		return err
	}
	cur, info, err := readRegular(abs, rel, MaxFileSize)
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := writeAtomic(abs, data, info.Mode().Perm(), false); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// Move renames the note at from to to (one atomic rename), creating
// missing folders. An existing destination is an fs.ErrExist error unless
// overwrite is set; a destination that is the same file (a change of
// case on a case-insensitive file system) is not "existing".
func Move(root, from, to string, overwrite bool) (err error) {
	src, srcInfo, err := locateSource(root, from)
	if err != nil {
		return err
	}
	dst, created, err := locate(root, to, true)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			removeDirs(created)
		}
	}()
	if err := refuseExisting(dst, to, srcInfo, overwrite); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		return fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	syncDir(filepath.Dir(dst))
	syncDir(filepath.Dir(src))
	return nil
}

// locateSource locates the existing note a move starts from.
func locateSource(root, rel string) (string, fs.FileInfo, error) {
	abs, _, err := locate(root, rel, false)
	if err != nil {
		return "", nil, err
	}
	info, err := os.Lstat(abs)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", rel, err)
	}
	return abs, info, nil
}

// refuseExisting is an fs.ErrExist error when a file other than the
// source (not merely the source under another case) exists at dst.
func refuseExisting(dst, rel string, src fs.FileInfo, overwrite bool) error {
	if info, err := os.Lstat(dst); err == nil && !os.SameFile(src, info) && !overwrite {
		return fmt.Errorf("%s already exists (set overwrite to replace it): %w", rel, fs.ErrExist)
	}
	return nil
}

// writeAtomic writes data to a temporary file next to abs (0600, then
// chmod to perm), fsyncs it and renames it over abs. With noClobber the
// final step is a hard link that fails if abs appeared meanwhile (where
// the file system has no hard links, an existence check and a rename).
// The temporary file never survives an error.
func writeAtomic(abs string, data []byte, perm fs.FileMode, noClobber bool) (err error) {
	dir := filepath.Dir(abs)
	f, err := os.CreateTemp(dir, ".enquire-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
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
		if err = publishNew(tmp, abs); err != nil {
			return err
		}
	} else if err = os.Rename(tmp, abs); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// publishNew gives tmp the name abs only if abs does not exist yet.
func publishNew(tmp, abs string) error {
	err := os.Link(tmp, abs)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared meanwhile: %w", filepath.Base(abs), fs.ErrExist)
	}
	// No hard links here (some network and FAT file systems).
	if _, statErr := os.Lstat(abs); statErr == nil {
		return fmt.Errorf("%s appeared meanwhile: %w", filepath.Base(abs), fs.ErrExist)
	}
	return os.Rename(tmp, abs)
}

// syncDir makes a rename durable where the platform allows (best effort).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
