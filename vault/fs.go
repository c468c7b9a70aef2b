package vault

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular reports a vault path that is not a regular file (a
// folder, a symlink, a FIFO, a device): it is never opened for reading.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file above the size cap of a read.
var ErrTooLarge = errors.New("file too large")

// ErrChanged reports a file that was replaced between the check of its
// path and its opening (a concurrent rename or swap); nothing was read.
var ErrChanged = errors.New("changed on disk while it was opened")

// FS is the one way into a vault's files. It holds the vault folder open
// (an os.Root) and resolves every path relative to that handle, so the
// kernel confines every open, create, rename, remove and stat to the
// vault: a folder swapped for a symlink to the outside between a check and
// a use makes the use fail instead of escaping, and no path string is ever
// opened from the process root. Paths are vault-relative and
// slash-separated ("" or "." is the vault folder itself).
//
// Symlinks are never followed on the last component of a read (Lstat,
// OpenRegular); folders on the way are resolved by os.Root, which follows
// only symlinks that stay inside the vault. Callers that refuse symlinks
// anywhere on a path (edit) check each folder with Lstat; a swap racing
// that check can at worst redirect them to another folder of the vault.
//
// An FS is safe for concurrent use. Close releases the handle; an FS
// that is dropped without Close is closed by the garbage collector.
type FS struct {
	root *os.Root
	dir  string
}

// OpenFS opens the vault folder dir (as RealRoot returns it).
func OpenFS(dir string) (*FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", dir, unwrapPathError(err))
	}
	return &FS{root: r, dir: dir}, nil
}

// Close releases the handle on the vault folder.
func (f *FS) Close() error { return f.root.Close() }

// Dir is the vault folder's path, for messages and relative paths only:
// nothing is opened by it.
func (f *FS) Dir() string { return f.dir }

// name turns a vault-relative slash path into a name for os.Root.
func name(rel string) string {
	rel = strings.TrimPrefix(rel, "/")
	if rel == "" {
		return "."
	}
	return filepath.FromSlash(rel)
}

// Lstat describes the entry at rel without following a final symlink.
func (f *FS) Lstat(rel string) (fs.FileInfo, error) { return f.root.Lstat(name(rel)) }

// Stat describes the entry at rel, following symlinks that stay inside
// the vault (one leading out is an error).
func (f *FS) Stat(rel string) (fs.FileInfo, error) { return f.root.Stat(name(rel)) }

// Readlink returns the target of the symlink at rel.
func (f *FS) Readlink(rel string) (string, error) { return f.root.Readlink(name(rel)) }

// ReadDir lists the folder at rel. The entries' Info is read relative to
// the opened folder, never by path.
func (f *FS) ReadDir(rel string) ([]fs.DirEntry, error) {
	d, err := f.root.Open(name(rel))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// OpenRegular opens the regular file at rel for reading. A symlink, FIFO,
// device or folder is ErrNotRegular; the open never blocks (O_NONBLOCK,
// should a FIFO replace the file after the check) and the opened handle
// is checked to be the regular file that was looked at (else ErrChanged).
func (f *FS) OpenRegular(rel string) (*os.File, fs.FileInfo, error) {
	before, err := f.root.Lstat(name(rel))
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrNotRegular)
	}
	fh, err := f.root.OpenFile(name(rel), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	opened, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if !opened.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrNotRegular)
	}
	if !os.SameFile(before, opened) {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	return fh, opened, nil
}

// ReadFile reads the regular file at rel (see OpenRegular), never more
// than max bytes: a larger file is ErrTooLarge, also when it grows while
// it is read.
func (f *FS) ReadFile(rel string, max int64) ([]byte, fs.FileInfo, error) {
	fh, info, err := f.OpenRegular(rel)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	return readOpened(fh, info, rel, max)
}

// readOpened reads an opened regular file whose size info was taken.
func readOpened(fh *os.File, info fs.FileInfo, rel string, max int64) ([]byte, fs.FileInfo, error) {
	if info.Size() > max {
		return nil, nil, fmt.Errorf("%s: %w (%d bytes, limit %d)", rel, ErrTooLarge, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	if int64(len(data)) > max {
		return nil, nil, fmt.Errorf("%s: %w (limit %d)", rel, ErrTooLarge, max)
	}
	return data, info, nil
}

// OpenDir opens the folder at rel as an FS of its own: its operations
// stay on that folder even if it is renamed or swapped meanwhile.
func (f *FS) OpenDir(rel string) (*FS, error) {
	r, err := f.root.OpenRoot(name(rel))
	if err != nil {
		return nil, err
	}
	return &FS{root: r, dir: filepath.Join(f.dir, name(rel))}, nil
}

// Mkdir creates the folder at rel.
func (f *FS) Mkdir(rel string, perm fs.FileMode) error { return f.root.Mkdir(name(rel), perm) }

// Remove removes the file or empty folder at rel.
func (f *FS) Remove(rel string) error { return f.root.Remove(name(rel)) }

// Rename renames from to to, both inside the vault.
func (f *FS) Rename(from, to string) error { return f.root.Rename(name(from), name(to)) }

// Link makes a hard link to from at to, both inside the vault; it fails
// if to exists.
func (f *FS) Link(from, to string) error { return f.root.Link(name(from), name(to)) }

// TempPrefix and TempSuffix frame the names of the temporary files of
// atomic writes, so that CleanTemp removes only ours.
const (
	TempPrefix = ".enquire-"
	TempSuffix = ".tmp"
)

// CreateTemp creates a new temporary file (0600) in the folder dir,
// named TempPrefix + random + TempSuffix, and returns it with its
// vault-relative path.
func (f *FS) CreateTemp(dir string) (*os.File, string, error) {
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		rel := TempPrefix + hex.EncodeToString(b[:]) + TempSuffix
		if dir != "" && dir != "." {
			rel = strings.TrimSuffix(dir, "/") + "/" + rel
		}
		fh, err := f.root.OpenFile(name(rel), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return fh, rel, nil
	}
	return nil, "", fmt.Errorf("create a temporary file in %q: too many name collisions", dir)
}

// SyncDir makes renames in the folder at rel durable where the platform
// allows (best effort).
func (f *FS) SyncDir(rel string) {
	if d, err := f.root.Open(name(rel)); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
