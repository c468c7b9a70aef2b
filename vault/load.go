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
	"sync"
	"sync/atomic"
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
	// Filter, when set, hides files and notes (privacy rules): see
	// [Filter] and [Snapshot.Privacy].
	Filter Filter
	// Reuse, when set, may give the note of a Markdown file the caller
	// has just read with ReadNote (same path, size and modification
	// time, same MaxFileSize): Load takes it instead of reading the file
	// again.
	Reuse func(File) (*Note, []Warning, bool)
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
	fsys, err := OpenFS(realRoot)
	if err != nil {
		return nil, err
	}
	notes, atts, warnings, err := fsys.Walk(ctx)
	if err != nil {
		fsys.Close()
		return nil, err
	}
	privacy := Privacy{Filter: opts.Filter}
	notes, atts = privacy.exclude(notes, atts, opts.PDFs)
	docs := notes
	if opts.PDFs {
		for _, a := range atts {
			if IsPDF(a.Path) {
				docs = append(docs, a)
			}
		}
	}
	parsed, parseWarnings, err := readAll(ctx, docs, opts, func(f File) (*Note, []Warning) {
		if opts.Reuse != nil {
			if n, w, ok := opts.Reuse(f); ok {
				return n, w
			}
		}
		return ReadNote(f, opts.MaxFileSize)
	})
	if err != nil {
		fsys.Close()
		return nil, err
	}
	parsed, privacy.marked = dropPrivate(parsed, opts.Filter)
	privacy.HiddenNotes += len(privacy.marked)
	attachments := make([]Attachment, len(atts))
	for i, a := range atts {
		attachments[i] = Attachment{Path: a.Path, Size: a.Size, ModTime: a.ModTime}
	}
	snap := NewSnapshot(realRoot, parsed, attachments, privacy.keepWarnings(append(warnings, parseWarnings...)))
	snap.useFS(fsys)
	snap.Privacy = privacy
	return snap, nil
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

// readAll reads and parses files with a pool of workers: PDFs with
// opts.PDF, notes with readNote. A file that cannot be read, is too large,
// or panics the parser is skipped with a warning.
func readAll(ctx context.Context, files []File, opts Options, readNote func(File) (*Note, []Warning)) ([]*Note, []Warning, error) {
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
					notes[j], warns[j] = readNote(files[j])
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
	raw, err := readCapped(f, maxSize)
	if err != nil {
		return nil, []Warning{{Path: f.Path, Message: err.Error()}}
	}
	return parseRaw(f, raw)
}

// parseRaw parses the bytes read from f.
func parseRaw(f File, raw []byte) (n *Note, warnings []Warning) {
	defer func() {
		if r := recover(); r != nil {
			n, warnings = nil, []Warning{{Path: f.Path, Message: fmt.Sprintf("parser failed (%v); skipped", r)}}
		}
	}()
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

// readCapped reads a walked file through the vault handle but never more
// than limit bytes, so a file that grows between stat and read cannot
// blow memory.
func readCapped(f File, limit int64) ([]byte, error) {
	if f.fs == nil {
		return nil, errors.New("unreadable: not found through the vault handle (vault.File made by hand?); skipped")
	}
	raw, _, err := f.fs.ReadFile(f.disk, limit)
	switch {
	case errors.Is(err, ErrTooLarge):
		return nil, fmt.Errorf("exceeds the %d-byte size cap; skipped", limit)
	case err != nil:
		return nil, fmt.Errorf("unreadable: %v", unwrapPathError(err))
	}
	return raw, nil
}
