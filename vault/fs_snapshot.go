package vault

import (
	"errors"
	"fmt"
	"sync"
)

// snapshotFS is a snapshot's vault handle, opened at most once: Load hands
// over the one it walked with, a snapshot made by NewSnapshot opens one on
// first use. It is shared by copies of the snapshot and closed by the
// garbage collector with the last of them.
type snapshotFS struct {
	once sync.Once
	root string
	fs   *FS
	err  error
}

// useFS makes f the snapshot's vault handle (before anyone asked for one).
func (s *Snapshot) useFS(f *FS) {
	s.files.once.Do(func() { s.files.fs = f })
}

// Files returns the handle through which every access to the snapshot's
// vault goes (see FS). It is opened once per snapshot and must not be
// closed by callers.
func (s *Snapshot) Files() (*FS, error) {
	if s.files == nil {
		return nil, errors.New("vault: snapshot made without NewSnapshot has no vault handle")
	}
	s.files.once.Do(func() { s.files.fs, s.files.err = OpenFS(s.files.root) })
	return s.files.fs, s.files.err
}

// File describes the regular file at the vault-relative path rel, found
// through f, for ReadNote and PDFReader.Read (which read only files found
// through a vault handle). A symlink or other non-regular file is
// ErrNotRegular.
func (f *FS) File(rel string) (File, error) {
	info, err := f.Lstat(rel)
	if err != nil {
		return File{}, err
	}
	if !info.Mode().IsRegular() {
		return File{}, fmt.Errorf("%s: %w", rel, ErrNotRegular)
	}
	return File{Path: nfc(rel), Size: info.Size(),
		ModTime: info.ModTime(), fs: f, disk: rel}, nil
}
