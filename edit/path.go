// Package edit changes files inside an Obsidian vault safely: every path is
// vault-relative and checked (no "..", absolute paths, NUL, hidden folders
// or node_modules), no symlink is ever followed, the real parent folder
// must lie inside the vault, and every write is atomic (a temporary file
// in the same folder, fsynced, then renamed over the target) and leaves no
// temporary file behind on error.
//
// Every function takes the vault's real root (symlink-free and absolute,
// as vault.Snapshot.Root). The text transforms (SetFrontmatter, Append,
// AppendToSection, PlanRename) are separate from the file operations so
// they can be previewed (dry runs) and tested without a disk.
package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ErrRefused marks a path that must not be written: it would leave the
// vault, lies in a hidden folder, goes through a symlink or is not a note.
var ErrRefused = errors.New("refused")

// Limits of a note path a write accepts: deep or long paths are almost
// always a client bug, and some file systems and sync tools cannot hold
// them (Windows' 260-character paths, 255-byte names).
const (
	// MaxPathDepth is the most folders a note path may go through.
	MaxPathDepth = 32
	// MaxPathBytes is the longest note path, in bytes.
	MaxPathBytes = 1024
	// MaxNameBytes is the longest file or folder name, in bytes.
	MaxNameBytes = 255
)

// NotePath cleans a vault-relative note path and adds ".md" when it does
// not end with it (case-insensitively). It refuses absolute paths, "..",
// control characters (NUL, newlines, tabs, DEL, C1 codes), skipped folders
// (.obsidian, .trash, .git, other dot-entries, node_modules) and paths
// beyond MaxPathDepth, MaxPathBytes or MaxNameBytes.
func NotePath(p string) (string, error) {
	if i := strings.IndexFunc(p, unicode.IsControl); i >= 0 {
		return "", fmt.Errorf("%w: %.80q: a note path must not contain control characters (found %U at byte %d)", ErrRefused, p, []rune(p[i:])[0], i)
	}
	clean, ok := vault.CleanRelPath(p)
	if !ok {
		return "", fmt.Errorf("%w: %q: a note path must be vault-relative, without \"..\", and outside hidden folders (.obsidian, .trash, .git, …) and node_modules", ErrRefused, p)
	}
	if !strings.EqualFold(filepath.Ext(clean), ".md") {
		clean += ".md"
	}
	segs := strings.Split(clean, "/")
	switch {
	case len(segs)-1 > MaxPathDepth:
		return "", fmt.Errorf("%w: the note path is %d folders deep; at most %d are allowed", ErrRefused, len(segs)-1, MaxPathDepth)
	case len(clean) > MaxPathBytes:
		return "", fmt.Errorf("%w: the note path is %d bytes long; at most %d are allowed", ErrRefused, len(clean), MaxPathBytes)
	}
	for _, seg := range segs {
		if len(seg) > MaxNameBytes {
			return "", fmt.Errorf("%w: the name %.40q… is %d bytes long; at most %d are allowed", ErrRefused, seg, len(seg), MaxNameBytes)
		}
	}
	return clean, nil
}

// location is where locate found (or will create) a file.
type location struct {
	disk    string      // vault-relative path as named on disk
	dir     string      // its folder ("" for the vault folder)
	name    string      // its name in that folder
	dirInfo fs.FileInfo // the folder as checked (nil: the vault folder)
	created []string    // folders made for it, outermost first
}

// locate checks every existing component of rel through the vault handle
// with Lstat: no symlinks, folders are folders, the file (if present) is
// a regular file. With mkdirs, missing folders are created (0755) and
// listed in created so a failed write can remove them again; without it a
// missing folder is fs.ErrNotExist. The handle confines every step to the
// vault whatever happens meanwhile; the checks keep symlinks inside it
// unfollowed too (writeAtomic re-checks the folder it writes in).
func locate(fsys *vault.FS, rel string, mkdirs bool) (loc location, err error) {
	if c, ok := vault.CleanRelPath(rel); !ok || c != rel {
		return location{}, fmt.Errorf("%w: %q is not a clean vault-relative path", ErrRefused, rel)
	}
	segs := strings.Split(rel, "/")
	dir := ""
	defer func() {
		if err != nil {
			removeDirs(fsys, loc.created)
			loc.created = nil
		}
	}()
	for i, seg := range segs[:len(segs)-1] {
		parent := dir
		dir = path.Join(dir, seg)
		shown := strings.Join(segs[:i+1], "/")
		info, err := fsys.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if name, ok := otherForm(fsys, parent, seg); ok {
				dir = path.Join(parent, name)
				info, err = fsys.Lstat(dir)
			}
		}
		if errors.Is(err, fs.ErrNotExist) && mkdirs {
			if err := fsys.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return loc, fmt.Errorf("create folder %s: %w", shown, err)
			} else if err == nil {
				loc.created = append(loc.created, dir)
			}
			info, err = fsys.Lstat(dir)
		}
		if err != nil {
			return loc, fmt.Errorf("folder %s: %w", shown, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return loc, fmt.Errorf("%w: %s is a symlink", ErrRefused, shown)
		}
		if !info.IsDir() {
			return loc, fmt.Errorf("%w: %s is not a folder", ErrRefused, shown)
		}
		loc.dirInfo = info
	}
	loc.dir, loc.name = dir, segs[len(segs)-1]
	if _, err := fsys.Lstat(path.Join(dir, loc.name)); errors.Is(err, fs.ErrNotExist) {
		if name, ok := otherForm(fsys, dir, loc.name); ok {
			loc.name = name
		}
	}
	loc.disk = path.Join(dir, loc.name)
	if info, err := fsys.Lstat(loc.disk); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			return loc, fmt.Errorf("%w: %s is a symlink", ErrRefused, rel)
		}
		if !info.Mode().IsRegular() {
			return loc, fmt.Errorf("%w: %s is not a regular file", ErrRefused, rel)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return loc, fmt.Errorf("%s: %w", rel, err)
	}
	return loc, nil
}

// otherForm finds the entry of the folder dir whose name is seg in
// another Unicode normalisation (the vault's paths are NFC; a file
// written on macOS may be named in NFD).
func otherForm(fsys *vault.FS, dir, seg string) (string, bool) {
	if norm.NFC.IsNormalString(seg) && norm.NFD.IsNormalString(seg) {
		return "", false // pure ASCII and the like: one form only
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return "", false
	}
	want := norm.NFC.String(seg)
	for _, e := range entries {
		if e.Name() != seg && norm.NFC.String(e.Name()) == want {
			return e.Name(), true
		}
	}
	return "", false
}

// removeDirs removes folders created for a write that failed, innermost
// first; a folder that is no longer empty stays.
func removeDirs(fsys *vault.FS, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = fsys.Remove(dirs[i])
	}
}
