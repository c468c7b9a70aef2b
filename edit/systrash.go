package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ErrNoSystemTrash reports a platform whose trash this editor does not
// know how to use (the caller then uses the vault's own TrashFolder).
var ErrNoSystemTrash = errors.New("no system trash on this platform")

// SystemTrash is the operating system's trash, where Obsidian's default
// "Move to system trash" puts deleted files: the freedesktop.org trash
// ($XDG_DATA_HOME/Trash, with a .trashinfo file a file manager restores
// from) on Linux and the BSDs, ~/.Trash on macOS.
type SystemTrash struct {
	// Dir is the trash folder.
	Dir string
	// infos: the freedesktop layout (files/ and info/).
	infos bool
}

// FindSystemTrash locates the current user's trash.
func FindSystemTrash() (SystemTrash, error) {
	switch runtime.GOOS {
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return SystemTrash{}, fmt.Errorf("system trash: %w", err)
		}
		return SystemTrash{Dir: filepath.Join(home, ".Trash")}, nil
	case "windows", "plan9", "js", "wasip1", "ios", "android":
		return SystemTrash{}, ErrNoSystemTrash
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		home, err := os.UserHomeDir()
		if err != nil {
			return SystemTrash{}, fmt.Errorf("system trash: %w", err)
		}
		data = filepath.Join(home, ".local", "share")
	}
	return SystemTrash{Dir: filepath.Join(data, "Trash"), infos: true}, nil
}

// Trash moves the note at rel of the vault at root into t, provided its
// content is still old (else ErrChanged, and nothing changes), and
// returns the path it got there. The vault's file is never renamed out
// of the vault handle: its checked bytes are written to the trash
// (fsynced), and only then is it removed through the handle, if it is
// still what was read; a failure removes the copy again.
func (t SystemTrash) Trash(root, rel string, old []byte, now time.Time) (string, error) {
	files, info := t.Dir, ""
	if t.infos {
		files, info = filepath.Join(t.Dir, "files"), filepath.Join(t.Dir, "info")
	}
	for _, d := range []string{t.Dir, files, info} {
		if d == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", fmt.Errorf("system trash: %w", err)
		}
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	name := path.Base(rel)
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := range maxTrashNames {
		n := name
		if i > 0 {
			n = stem + " " + strconv.Itoa(i) + ext
		}
		var infoPath string
		if t.infos {
			// The .trashinfo file, made with O_EXCL, reserves the name
			// (the freedesktop.org rule for concurrent trashers).
			infoPath = filepath.Join(info, n+".trashinfo")
			f, err := os.OpenFile(infoPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("system trash: %w", err)
			}
			_, err = fmt.Fprintf(f, "[Trash Info]\nPath=%s\nDeletionDate=%s\n", trashInfoPath(abs), now.Format("2006-01-02T15:04:05"))
			if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
				os.Remove(infoPath)
				return "", fmt.Errorf("system trash: %w", err)
			}
		}
		dst := filepath.Join(files, n)
		err := writeNew(dst, old)
		if errors.Is(err, fs.ErrExist) {
			if infoPath != "" {
				os.Remove(infoPath)
			}
			continue
		}
		if err == nil {
			err = Delete(root, rel, old)
		}
		if err != nil {
			os.Remove(dst)
			if infoPath != "" {
				os.Remove(infoPath)
			}
			return "", err
		}
		return dst, nil
	}
	return "", fmt.Errorf("system trash: %d files named %s are there already", maxTrashNames, name)
}

// writeNew creates path (never over an existing file) with data, synced.
func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
		os.Remove(p)
		return fmt.Errorf("system trash: %w", err)
	}
	return nil
}

// trashInfoPath escapes an absolute path as the .trashinfo Path key wants
// it (RFC 2396 escaping, slashes kept).
func trashInfoPath(abs string) string {
	u := url.URL{Path: filepath.ToSlash(abs)}
	return u.EscapedPath()
}
