package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
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
	Size    int64
	ModTime time.Time

	fs   *FS    // the vault handle the file was found through
	disk string // the path as named on disk, vault-relative and slash-separated (Path is NFC)
}

// Abs is the file's path on disk, for messages only: the file itself is
// read through the vault handle it was found through. It is built on
// demand because a rescan walks every file and prints none.
func (f File) Abs() string {
	if f.fs == nil {
		return filepath.FromSlash(f.disk)
	}
	return filepath.Join(f.fs.dir, filepath.FromSlash(f.disk))
}

// walker collects the results of a parallel walk.
type walker struct {
	ctx context.Context
	fs  *FS
	sem chan struct{} // bounds the directories read at once
	wg  sync.WaitGroup
	mu  sync.Mutex
	// noteParts are the notes of each folder, joined once at the end (a
	// vault of 100,000 notes grew one slice by copying it again and again).
	noteParts [][]File
	notes     []File
	atts      []File
	warnings  []Warning
}

// Walk lists the vault's markdown notes and other files (attachments)
// under its real root, by stat alone, sorted by path. It skips
// dot-folders, node_modules and symlinks (warning about those that leave
// the vault). Folders are read in parallel: a resync of a big vault is
// mostly stat calls, which overlap well. The files found are read
// through the vault handle Walk opened (see FS), released with them.
func Walk(ctx context.Context, root string) (notes, attachments []File, warnings []Warning, err error) {
	fsys, err := OpenFS(root)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk %w", err)
	}
	return fsys.Walk(ctx)
}

// Walk is the package's Walk through an open vault handle: every folder
// is listed relative to it, so a folder swapped for a symlink mid-walk
// cannot lead the walk out of the vault.
func (f *FS) Walk(ctx context.Context) (notes, attachments []File, warnings []Warning, err error) {
	return f.WalkFolder(ctx, "")
}

// WalkFolder lists the files under the vault-relative folder rel the way
// Walk lists the whole vault.
func (f *FS) WalkFolder(ctx context.Context, rel string) (notes, attachments []File, warnings []Warning, err error) {
	root := f.dir
	entries, err := f.ReadDir(rel)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, unwrapPathError(err))
	}
	w := &walker{ctx: ctx, fs: f, sem: make(chan struct{}, max(4, 2*runtime.GOMAXPROCS(0)))}
	w.wg.Add(1)
	w.sem <- struct{}{}
	w.entries(strings.Trim(path.Clean("/"+filepath.ToSlash(rel)), "/"), entries)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, err)
	}
	w.notes = slices.Concat(w.noteParts...)
	byPath := func(a, b File) int { return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.disk, b.disk)) }
	slices.SortFunc(w.notes, byPath)
	slices.SortFunc(w.atts, byPath)
	w.notes, w.atts = w.unique(w.notes), w.unique(w.atts)
	slices.SortStableFunc(w.warnings, func(a, b Warning) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return w.notes, w.atts, w.warnings, nil
}

// dir reads one folder (in its own goroutine); disk is its vault-relative
// path as named on disk, slash-separated.
func (w *walker) dir(disk string) {
	w.sem <- struct{}{}
	if w.ctx.Err() != nil {
		<-w.sem
		w.wg.Done()
		return
	}
	entries, err := w.fs.ReadDir(disk)
	if err != nil {
		w.warn(nfc(disk), "unreadable: "+unwrapPathError(err).Error())
	}
	w.entries(disk, entries) // whatever was read before an error still counts
}

// entries handles the entries of the folder at disk ("" for the root);
// it releases the folder's slot. Paths are joined by hand, not with
// filepath, because a rescan does this for every file of the vault.
func (w *walker) entries(disk string, entries []fs.DirEntry) {
	defer w.wg.Done()
	files := make([]File, 0, len(entries)) // most entries are notes
	var atts []File
	for _, d := range entries {
		p := d.Name()
		if disk != "" {
			p = disk + "/" + p
		}
		switch {
		case Skipped(d.Name()):
		case d.Type()&fs.ModeSymlink != 0:
			// Never followed: a target outside the vault is off limits,
			// one inside is walked at its own path anyway.
			if problem := w.fs.symlinkProblem(p); problem != "" {
				w.warn(nfc(p), problem)
			}
		case d.IsDir():
			w.wg.Add(1)
			go w.dir(p)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				w.warn(nfc(p), "unreadable: "+unwrapPathError(err).Error())
				continue
			}
			f := File{Path: nfc(p), Size: info.Size(), ModTime: info.ModTime(), fs: w.fs, disk: p}
			if IsNote(p) {
				files = append(files, f)
			} else {
				atts = append(atts, f)
			}
		}
	}
	<-w.sem
	w.mu.Lock()
	w.noteParts = append(w.noteParts, files)
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
		w.warnings = append(w.warnings, Warning{Path: b.Path, Message: fmt.Sprintf("%s has the same name as %s in another Unicode form; skipped", b.Abs(), a.Abs())})
		return true
	})
}

func (w *walker) warn(rel, msg string) {
	w.mu.Lock()
	w.warnings = append(w.warnings, Warning{Path: rel, Message: msg})
	w.mu.Unlock()
}

// symlinkProblem says why a skipped symlink at rel deserves a warning
// ("" for one that stays inside the vault). Nothing outside the vault is
// looked at: a target that leaves it is classified by its path alone.
func (f *FS) symlinkProblem(rel string) string {
	const outside = "symlink points outside the vault; skipped"
	target, err := f.Readlink(rel)
	if err != nil {
		return "unreadable symlink; skipped"
	}
	probe := rel
	if filepath.IsAbs(target) { // os.Root refuses absolute links: resolve it by hand
		target = filepath.Clean(target)
		if !Within(f.dir, target) {
			return outside
		}
		probe = filepath.ToSlash(relTo(f.dir, target))
	}
	switch _, err := f.Stat(probe); {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "broken symlink; skipped"
	}
	return outside
}

// Within reports whether the real path p is root or inside it.
func Within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// relTo is p relative to root in OS form ("." for root).
func relTo(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return rel
}
