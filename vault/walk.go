package vault

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Skipped reports whether a folder or file name is never part of the vault:
// dot-entries (.obsidian, .trash, .git, …) and node_modules.
func Skipped(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// IsNote reports whether a vault-relative path is a markdown note.
func IsNote(p string) bool { return strings.EqualFold(filepath.Ext(p), ".md") }

// IsPDF reports whether a vault-relative path is a PDF.
func IsPDF(p string) bool { return strings.EqualFold(filepath.Ext(p), ".pdf") }

// File is one regular file of the vault, as walked.
type File struct {
	Path    string // vault-relative, slash-separated, NFC
	Abs     string
	Size    int64
	ModTime time.Time
}

// walker collects the results of a parallel walk.
type walker struct {
	ctx      context.Context
	root     string
	sem      chan struct{} // bounds the directories read at once
	wg       sync.WaitGroup
	mu       sync.Mutex
	notes    []File
	atts     []File
	warnings []Warning
}

// Walk lists the vault's markdown notes and other files (attachments)
// under its real root, by stat alone, sorted by path. It skips
// dot-folders, node_modules and symlinks (warning about those that leave
// the vault). Folders are read in parallel: a resync of a big vault is
// mostly stat calls, which overlap well.
func Walk(ctx context.Context, root string) (notes, attachments []File, warnings []Warning, err error) {
	return walkFrom(ctx, root, root)
}

// walkFrom walks the folder start of the vault at root.
func walkFrom(ctx context.Context, root, start string) (notes, attachments []File, warnings []Warning, err error) {
	entries, err := os.ReadDir(start)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, unwrapPathError(err))
	}
	w := &walker{ctx: ctx, root: root, sem: make(chan struct{}, max(4, 2*runtime.GOMAXPROCS(0)))}
	w.wg.Add(1)
	w.sem <- struct{}{}
	w.entries(start, entries)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, err)
	}
	byPath := func(a, b File) int { return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Abs, b.Abs)) }
	slices.SortFunc(w.notes, byPath)
	slices.SortFunc(w.atts, byPath)
	w.notes, w.atts = w.unique(w.notes), w.unique(w.atts)
	slices.SortStableFunc(w.warnings, func(a, b Warning) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return w.notes, w.atts, w.warnings, nil
}

// WalkFolder lists the files under the vault-relative folder rel the way
// Walk lists the whole vault.
func WalkFolder(ctx context.Context, root, rel string) (notes, attachments []File, warnings []Warning, err error) {
	return walkFrom(ctx, root, filepath.Join(root, filepath.FromSlash(rel)))
}

// dir reads one folder (in its own goroutine).
func (w *walker) dir(p string) {
	w.sem <- struct{}{}
	if w.ctx.Err() != nil {
		<-w.sem
		w.wg.Done()
		return
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		w.warn(relPath(w.root, p), "unreadable: "+unwrapPathError(err).Error())
	}
	w.entries(p, entries) // whatever was read before an error still counts
}

// entries handles a folder's entries; it releases the folder's slot.
func (w *walker) entries(dir string, entries []fs.DirEntry) {
	defer w.wg.Done()
	var files, atts []File
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		rel := relPath(w.root, p)
		switch {
		case Skipped(d.Name()):
		case d.Type()&fs.ModeSymlink != 0:
			// Never followed: a target outside the vault is off limits,
			// one inside is walked at its own path anyway.
			if problem := symlinkProblem(w.root, p); problem != "" {
				w.warn(rel, problem)
			}
		case d.IsDir():
			w.wg.Add(1)
			go w.dir(p)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				w.warn(rel, "unreadable: "+unwrapPathError(err).Error())
				continue
			}
			f := File{Path: rel, Abs: p, Size: info.Size(), ModTime: info.ModTime()}
			if IsNote(p) {
				files = append(files, f)
			} else {
				atts = append(atts, f)
			}
		}
	}
	<-w.sem
	w.mu.Lock()
	w.notes = append(w.notes, files...)
	w.atts = append(w.atts, atts...)
	w.mu.Unlock()
}

// unique drops files whose names differ only in Unicode form (NFC/NFD,
// possible on Linux): their vault paths are the same, so only the first
// is indexed.
func (w *walker) unique(files []File) []File {
	return slices.CompactFunc(files, func(a, b File) bool {
		if a.Path != b.Path {
			return false
		}
		w.warnings = append(w.warnings, Warning{Path: b.Path, Message: fmt.Sprintf("%s has the same name as %s in another Unicode form; skipped", b.Abs, a.Abs)})
		return true
	})
}

func (w *walker) warn(rel, msg string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, Warning{Path: rel, Message: msg})
	w.mu.Unlock()
}

// symlinkProblem says why a skipped symlink deserves a warning ("" for
// one that stays inside the vault).
func symlinkProblem(root, p string) string {
	target, err := filepath.EvalSymlinks(p)
	switch {
	case err != nil:
		return "broken symlink; skipped"
	case !Within(root, target):
		return "symlink points outside the vault; skipped"
	}
	return ""
}

// Within reports whether the real path p is root or inside it.
func Within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

func relPath(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return nfc(filepath.ToSlash(rel))
}
