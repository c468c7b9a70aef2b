package vault

import (
	"context"
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
)

// DefaultMaxFileSize is the per-file size cap: larger notes are skipped
// with a warning.
const DefaultMaxFileSize = 5 << 20

// Options tune [Load].
type Options struct {
	// MaxFileSize skips larger files with a warning (0: DefaultMaxFileSize).
	MaxFileSize int64
	// Workers parse files in parallel (0: GOMAXPROCS).
	Workers int
}

// file is one walked file waiting to be read.
type file struct {
	abs, rel string
	info     fs.FileInfo
}

// Load walks the vault at root and returns a resolved snapshot. Only a
// missing or unreadable root is an error; everything else (a bad file, a
// symlink leaving the vault, an oversize note) becomes a warning.
func Load(ctx context.Context, root string, opts Options) (*Snapshot, error) {
	realRoot, err := RealRoot(root)
	if err != nil {
		return nil, err
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	files, atts, warnings, err := walk(ctx, realRoot)
	if err != nil {
		return nil, err
	}
	notes, parseWarnings, err := parseAll(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	return NewSnapshot(realRoot, notes, atts, append(warnings, parseWarnings...)), nil
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

func walk(ctx context.Context, root string) ([]file, []Attachment, []Warning, error) {
	var files []file
	var atts []Attachment
	var warnings []Warning
	warn := func(rel, msg string) { warnings = append(warnings, Warning{Path: rel, Message: msg}) }
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
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
		info, err := d.Info()
		if err != nil {
			warn(rel, "unreadable: "+unwrapPathError(err).Error())
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
		switch {
		case d.IsDir() || !info.Mode().IsRegular():
		case IsNote(p):
			files = append(files, file{abs: p, rel: rel, info: info})
		default:
			atts = append(atts, Attachment{Path: rel, Size: info.Size(), ModTime: info.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("walk vault %s: %w", root, err)
	}
	return files, atts, warnings, nil
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

// parseAll reads and parses files with a pool of workers. A file that
// cannot be read, is too large, or panics the parser is skipped with a
// warning.
func parseAll(ctx context.Context, files []file, opts Options) ([]*Note, []Warning, error) {
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
				notes[j], warns[j] = readNote(files[j], opts.MaxFileSize)
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

func readNote(f file, maxSize int64) (n *Note, warnings []Warning) {
	defer func() {
		if r := recover(); r != nil {
			n, warnings = nil, []Warning{{Path: f.rel, Message: fmt.Sprintf("parser failed (%v); skipped", r)}}
		}
	}()
	if f.info.Size() > maxSize {
		return nil, []Warning{{Path: f.rel, Message: fmt.Sprintf("%d bytes exceeds the %d-byte size cap; skipped", f.info.Size(), maxSize)}}
	}
	raw, err := readCapped(f.abs, maxSize)
	if err != nil {
		return nil, []Warning{{Path: f.rel, Message: err.Error()}}
	}
	n, warnings = Parse(f.rel, raw)
	n.ModTime = f.info.ModTime()
	return n, warnings
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
