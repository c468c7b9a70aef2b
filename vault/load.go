package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxFileSize is the per-file size cap: larger notes are skipped
// with a warning.
const DefaultMaxFileSize = 5 << 20

// Options tune [Load].
type Options struct {
	// MaxFileSize skips larger notes with a warning (0: DefaultMaxFileSize).
	MaxFileSize int64
	// Workers parse files in parallel (0: GOMAXPROCS).
	Workers int
	// PDFs makes PDF attachments searchable documents (kind "pdf").
	PDFs bool
	// PDF reads them (its Cache, a persistent index, skips unchanged ones).
	PDF PDFReader
}

// Load walks the vault at root and returns a resolved snapshot. Only a
// missing or unreadable root is an error; everything else (a bad file, a
// symlink leaving the vault, an oversize note, a broken PDF) becomes a
// warning.
func Load(ctx context.Context, root string, opts Options) (*Snapshot, error) {
	realRoot, err := RealRoot(root)
	if err != nil {
		return nil, err
	}
	notes, atts, warnings, err := Walk(ctx, realRoot)
	if err != nil {
		return nil, err
	}
	docs := notes
	if opts.PDFs {
		for _, a := range atts {
			if IsPDF(a.Path) {
				docs = append(docs, a)
			}
		}
	}
	parsed, parseWarnings, err := readAll(ctx, docs, opts)
	if err != nil {
		return nil, err
	}
	attachments := make([]Attachment, len(atts))
	for i, a := range atts {
		attachments[i] = Attachment{Path: a.Path, Size: a.Size, ModTime: a.ModTime}
	}
	return NewSnapshot(realRoot, parsed, attachments, append(warnings, parseWarnings...)), nil
}

// RealRoot checks that root is a readable directory and returns its
// absolute, symlink-free path.
func RealRoot(root string) (string, error) {
	if root == "" {
		return "", errors.New("vault: no path given")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("vault %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("vault %s: %w", root, unwrapPathError(err))
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("vault %s: %w", root, unwrapPathError(err))
	}
	if !info.IsDir() {
		return "", fmt.Errorf("vault %s: not a directory", root)
	}
	f, err := os.Open(real)
	if err != nil {
		return "", fmt.Errorf("vault %s: %w", root, unwrapPathError(err))
	}
	defer f.Close()
	if _, err := f.ReadDir(1); err != nil && err != io.EOF {
		return "", fmt.Errorf("vault %s: %w", root, unwrapPathError(err))
	}
	return real, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

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

// Walk lists the vault's markdown notes and other files (attachments)
// under its real root, by stat alone. It skips dot-folders, node_modules
// and symlinks (warning about those that leave the vault).
func Walk(ctx context.Context, root string) (notes, attachments []File, warnings []Warning, err error) {
	warn := func(rel, msg string) { warnings = append(warnings, Warning{Path: rel, Message: msg}) }
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		rel := relPath(root, p)
		if err != nil {
			if p == root {
				return err
			}
			warn(rel, "unreadable: "+unwrapPathError(err).Error())
			return nil // WalkDir skips the entry (and a folder's contents)
		}
		if p == root {
			return nil
		}
		if Skipped(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// Never followed: a target outside the vault is off limits,
			// one inside is walked at its own path anyway.
			if problem := symlinkProblem(root, p); problem != "" {
				warn(rel, problem)
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			warn(rel, "unreadable: "+unwrapPathError(err).Error())
			return nil
		}
		f := File{Path: rel, Abs: p, Size: info.Size(), ModTime: info.ModTime()}
		if IsNote(p) {
			notes = append(notes, f)
		} else {
			attachments = append(attachments, f)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, err)
	}
	return notes, attachments, warnings, nil
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

// readAll reads and parses files with a pool of workers. A file that
// cannot be read, is too large, or panics the parser is skipped with a
// warning.
func readAll(ctx context.Context, files []File, opts Options) ([]*Note, []Warning, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	notes := make([]*Note, len(files))
	warns := make([][]Warning, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				j := int(next.Add(1) - 1)
				if j >= len(files) {
					return
				}
				if IsPDF(files[j].Path) {
					notes[j], warns[j] = opts.PDF.Read(ctx, files[j])
				} else {
					notes[j], warns[j] = ReadNote(files[j], opts.MaxFileSize)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var out []*Note
	var warnings []Warning
	for j, n := range notes {
		if n != nil {
			out = append(out, n)
		}
		warnings = append(warnings, warns[j]...)
	}
	return out, warnings, nil
}

// ReadNote reads and parses one markdown file (maxSize 0: the default
// cap). It never fails: a problem is a warning and a nil note.
func ReadNote(f File, maxSize int64) (n *Note, warnings []Warning) {
	defer func() {
		if r := recover(); r != nil {
			n, warnings = nil, []Warning{{Path: f.Path, Message: fmt.Sprintf("parser failed (%v); skipped", r)}}
		}
	}()
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	if f.Size > maxSize {
		return nil, []Warning{{Path: f.Path, Message: fmt.Sprintf("%d bytes exceeds the %d-byte size cap; skipped", f.Size, maxSize)}}
	}
	raw, err := readCapped(f.Abs, maxSize)
	if err != nil {
		return nil, []Warning{{Path: f.Path, Message: err.Error()}}
	}
	n, warnings = Parse(f.Path, raw)
	n.ModTime = f.ModTime
	n.Hash = HashBytes(raw)
	return n, warnings
}

// HashBytes is the content hash the index uses to confirm a change.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// readCapped reads a file but never more than limit bytes, so a file that
// grows between stat and read cannot blow memory.
func readCapped(p string, limit int64) ([]byte, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("unreadable: %v", unwrapPathError(err))
	}
	defer fh.Close()
	raw, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, fmt.Errorf("unreadable: %v", err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("exceeds the %d-byte size cap; skipped", limit)
	}
	return raw, nil
}
