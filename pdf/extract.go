package pdf

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	lpdf "github.com/ledongthuc/pdf"
)

// Extract reads the PDF at path and returns its text page by page.
//
// The file is refused with ErrTooLarge when os.Stat reports more than
// opts.MaxBytes, before anything is read. A file the PDF library cannot
// parse yields an error wrapping ErrCorrupt and the library's message; a
// file that needs a password, or uses an encryption scheme the library does
// not handle (AES-256, 40-bit RC4), yields ErrEncrypted. Files encrypted
// with an empty user password (owner-password-only files, which viewers
// open without asking) using 128-bit RC4 or AES-128 are decrypted by the
// library and extracted like any other file. A missing file yields an error
// wrapping fs.ErrNotExist.
//
// Extract never panics: a panic inside the PDF library is recovered and
// returned as an error wrapping ErrCorrupt. A page whose text extraction
// fails or panics part way (malformed content stream, unsupported filter,
// ...) keeps the text found before the failure, possibly none, so that
// the rest of the document still counts. Content the library must not be
// given (see checkStream) is skipped.
//
// Crafted files are vetted before the library sees them (see checkXref
// and checkStream), but the library was not written for hostile input and
// in-process extraction is not guaranteed to terminate, or to keep its
// memory bounded, on every crafted file: run untrusted files through
// Isolated.
//
// ctx is checked before each page (and periodically while a page's content
// is interpreted); on cancellation Extract returns an error wrapping
// ctx.Err() and no document.
func Extract(ctx context.Context, path string, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", path, err)
	}
	data, err := readFile(path, opts.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", path, err)
	}
	return extractData(ctx, path, data, opts)
}

// ExtractFile is Extract for a file that is already open (so that no
// path is opened here: a vault hands over a handle it confined). The
// file is read with ReadAt from its start, so its offset neither matters
// nor moves; it must be a regular file of at most opts.MaxBytes.
func ExtractFile(ctx context.Context, f *os.File, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", f.Name(), err)
	}
	data, err := readOpen(f, opts.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", f.Name(), err)
	}
	return extractData(ctx, f.Name(), data, opts)
}

// extractData extracts the text of a PDF held in memory.
func extractData(ctx context.Context, path string, data []byte, opts Options) (doc *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc = nil
			err = fmt.Errorf("pdf: extract %s: %w: panic: %v", path, ErrCorrupt, r)
		}
	}()
	r, err := openReader(data)
	if err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", path, err)
	}
	doc, err = extractPages(ctx, r, opts)
	if err != nil {
		return nil, fmt.Errorf("pdf: extract %s: %w", path, err)
	}
	return doc, nil
}

// readFile returns the contents of the regular file at path, refusing files
// larger than max bytes. The size is checked with os.Stat before the file is
// opened, and again while reading in case the file grew in between.
//
// The whole file is held in memory on purpose: the PDF library re-reads
// objects through io.ReaderAt on every dictionary lookup, which is several
// times faster from a byte slice than through read system calls, and max
// bounds the memory used.
func readFile(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", ErrCorrupt)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, limit is %d", ErrTooLarge, fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, max)
}

// readOpen reads an open regular file of at most max bytes from its
// start, with ReadAt.
func readOpen(f *os.File, max int64) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: not a regular file", ErrCorrupt)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, limit is %d", ErrTooLarge, fi.Size(), max)
	}
	limit := max // read one byte more than max to notice growth
	if limit < math.MaxInt64 {
		limit++
	}
	data, err := io.ReadAll(io.NewSectionReader(f, 0, limit))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return data, nil
}

// extractPages walks the page tree of r and collects the text of at most
// opts.MaxPages pages and opts.MaxTextBytes bytes of text.
func extractPages(ctx context.Context, r *lpdf.Reader, opts Options) (*Document, error) {
	pages, numPages, more, err := collectPages(ctx, r, opts.MaxPages)
	if err != nil {
		return nil, err
	}
	doc := &Document{NumPages: numPages, Pages: make([]Page, 0, len(pages)), Truncated: more}
	remaining := opts.MaxTextBytes
	fonts := newFontCache()
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, cut, err := pageText(ctx, p, remaining, fonts)
		if err != nil { // only cancellation: a failing page keeps the text found before
			return nil, err
		}
		if len(text) > remaining {
			text = truncateText(text, remaining)
			cut = true
		}
		doc.Pages = append(doc.Pages, Page{Number: i + 1, Text: text})
		remaining -= len(text)
		if cut {
			doc.Truncated = true
			break
		}
	}
	return doc, nil
}

// truncateText cuts s to at most n bytes without splitting a UTF-8 sequence
// and drops trailing whitespace left at the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return trimRightSpace(s[:n])
}
