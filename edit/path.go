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
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ErrRefused marks a path that must not be written: it would leave the
// vault, lies in a hidden folder, goes through a symlink or is not a note.
var ErrRefused = errors.New("refused")

// NotePath cleans a vault-relative note path and adds ".md" when it does
// not end with it (case-insensitively). It refuses absolute paths, "..",
// NUL and skipped folders (.obsidian, .trash, .git, other dot-entries,
// node_modules).
func NotePath(p string) (string, error) {
	clean, ok := vault.CleanRelPath(p)
	if !ok {
		return "", fmt.Errorf("%w: %q: a note path must be vault-relative, without \"..\", and outside hidden folders (.obsidian, .trash, .git, …) and node_modules", ErrRefused, p)
	}
	if !strings.EqualFold(filepath.Ext(clean), ".md") {
		clean += ".md"
	}
	return clean, nil
}

// locate returns the absolute path of rel under root after checking every
// existing component with Lstat: no symlinks, folders are folders, the
// file (if present) is a regular file, and the real parent folder lies
// inside root. With mkdirs, missing folders are created (0755) and listed
// in created (outermost first) so a failed write can remove them again;
// without it a missing folder is fs.ErrNotExist.
func locate(root, rel string, mkdirs bool) (abs string, created []string, err error) {
	if !filepath.IsAbs(root) {
		return "", nil, fmt.Errorf("vault root %q is not absolute", root)
	}
	if c, ok := vault.CleanRelPath(rel); !ok || c != rel {
		return "", nil, fmt.Errorf("%w: %q is not a clean vault-relative path", ErrRefused, rel)
	}
	segs := strings.Split(rel, "/")
	dir := root
	defer func() {
		if err != nil {
			removeDirs(created)
			created = nil
		}
	}()
	for i, seg := range segs[:len(segs)-1] {
		parent := dir
		dir = filepath.Join(dir, seg)
		shown := strings.Join(segs[:i+1], "/")
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if name, ok := otherForm(parent, seg); ok {
				dir = filepath.Join(parent, name)
				info, err = os.Lstat(dir)
			}
		}
		if errors.Is(err, fs.ErrNotExist) && mkdirs {
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", created, fmt.Errorf("create folder %s: %w", shown, err)
			} else if err == nil {
				created = append(created, dir)
			}
			info, err = os.Lstat(dir)
		}
		if err != nil {
			return "", created, fmt.Errorf("folder %s: %w", shown, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", created, fmt.Errorf("%w: %s is a symlink", ErrRefused, shown)
		}
		if !info.IsDir() {
			return "", created, fmt.Errorf("%w: %s is not a folder", ErrRefused, shown)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", created, fmt.Errorf("folder of %s: %w", rel, err)
	}
	if !vault.Within(root, real) {
		return "", created, fmt.Errorf("%w: %s is outside the vault", ErrRefused, rel)
	}
	abs = filepath.Join(dir, segs[len(segs)-1])
	if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
		if name, ok := otherForm(dir, segs[len(segs)-1]); ok {
			abs = filepath.Join(dir, name)
		}
	}
	if info, err := os.Lstat(abs); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", created, fmt.Errorf("%w: %s is a symlink", ErrRefused, rel)
		}
		if !info.Mode().IsRegular() {
			return "", created, fmt.Errorf("%w: %s is not a regular file", ErrRefused, rel)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", created, fmt.Errorf("%s: %w", rel, err)
	}
	return abs, created, nil
}

// otherForm finds the entry of dir whose name is seg in another Unicode
// normalisation (the vault's paths are NFC; a file written on macOS may
// be named in NFD).
func otherForm(dir, seg string) (string, bool) {
	if norm.NFC.IsNormalString(seg) && norm.NFD.IsNormalString(seg) {
		return "", false // pure ASCII and the like: one form only
	}
	entries, err := os.ReadDir(dir)
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
func removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
}
