// Package ocr reads the text of image-only (scanned) PDF pages with two
// external programs: pdftoppm (Debian package poppler-utils) renders a
// page to a grayscale image and tesseract (tesseract-ocr, plus
// tesseract-ocr-LANG) reads it. Both run as child processes with a
// timeout per page and a cap on pages, so a hostile or huge file costs
// bounded time and never runs inside the server.
//
// It is the engine for scanned PDFs; the vault loader and the index
// (which caches results by file hash) are its callers.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultLangs    = "eng"
	DefaultMaxPages = 50
	DefaultTimeout  = 60 * time.Second
	DefaultDPI      = 200
)

// ErrToolsMissing is returned (wrapped, naming the packages to install)
// when pdftoppm or tesseract is not on PATH.
var ErrToolsMissing = errors.New("OCR tools missing")

// Options bound and configure one run.
type Options struct {
	// Langs are tesseract's languages, "+"-separated (default "eng").
	Langs string
	// MaxPages caps the pages read per file (default 50).
	MaxPages int
	// Timeout bounds each page's rendering and reading (default 60 s).
	Timeout time.Duration
	// DPI is the rendering resolution (default 200).
	DPI int
	// LookPath finds the programs (default exec.LookPath).
	LookPath func(string) (string, error)
}

func (o Options) withDefaults() Options {
	if o.Langs == "" {
		o.Langs = DefaultLangs
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.DPI <= 0 {
		o.DPI = DefaultDPI
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	return o
}

// Page is the text read from one page.
type Page struct {
	Number int // 1-based
	Text   string
}

// Tools are the located programs.
type Tools struct {
	Pdftoppm, Tesseract string
}

// Find locates pdftoppm and tesseract; the error names what to install.
func Find(opts Options) (Tools, error) {
	opts = opts.withDefaults()
	var t Tools
	var missing []string
	var err error
	if t.Pdftoppm, err = opts.LookPath("pdftoppm"); err != nil {
		missing = append(missing, "pdftoppm (package poppler-utils; macOS: brew install poppler)")
	}
	if t.Tesseract, err = opts.LookPath("tesseract"); err != nil {
		missing = append(missing, "tesseract (packages tesseract-ocr tesseract-ocr-eng; macOS: brew install tesseract)")
	}
	if len(missing) > 0 {
		return Tools{}, fmt.Errorf("%w: %s", ErrToolsMissing, strings.Join(missing, ", "))
	}
	return t, nil
}

// Read OCRs the given 1-based pages of the PDF at path (at most
// opts.MaxPages of them, in the order given). A page that fails or times
// out is an error naming it; the pages read before it are returned too.
func Read(ctx context.Context, t Tools, path string, pages []int, opts Options) ([]Page, error) {
	dir, err := os.MkdirTemp("", "enquire-ocr-*")
	if err != nil {
		return nil, fmt.Errorf("ocr %s: %w", path, err)
	}
	defer os.RemoveAll(dir)
	return readPages(ctx, t, path, path, pages, dir, opts)
}

// ReadFrom is Read for a PDF given as its bytes (an opened file, read with
// ReadAt only): they are copied into a private temporary folder (0700)
// that is removed afterwards, so the programs never see a path into the
// vault. name only labels errors.
func ReadFrom(ctx context.Context, t Tools, src io.ReaderAt, name string, pages []int, opts Options) ([]Page, error) {
	dir, err := os.MkdirTemp("", "enquire-ocr-*")
	if err != nil {
		return nil, fmt.Errorf("ocr %s: %w", name, err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "in.pdf")
	if err := copyTo(path, io.NewSectionReader(src, 0, math.MaxInt64-1)); err != nil {
		return nil, fmt.Errorf("ocr %s: %w", name, err)
	}
	return readPages(ctx, t, path, name, pages, dir, opts)
}

func copyTo(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}

// readPages OCRs pages of the PDF at path (called name in errors), with
// dir for the images.
func readPages(ctx context.Context, t Tools, path, name string, pages []int, dir string, opts Options) ([]Page, error) {
	opts = opts.withDefaults()
	if len(pages) > opts.MaxPages {
		pages = pages[:opts.MaxPages]
	}
	var out []Page
	for _, n := range pages {
		text, err := readPage(ctx, t, path, n, dir, opts)
		if err != nil {
			return out, fmt.Errorf("ocr %s page %d: %w", name, n, err)
		}
		out = append(out, Page{Number: n, Text: text})
	}
	return out, nil
}

func readPage(ctx context.Context, t Tools, path string, n int, dir string, opts Options) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	prefix := filepath.Join(dir, "page")
	num := strconv.Itoa(n)
	// -singlefile names the image prefix.png whatever the page count.
	if err := run(ctx, nil, t.Pdftoppm, "-f", num, "-l", num, "-r", strconv.Itoa(opts.DPI), "-gray", "-png", "-singlefile", path, prefix); err != nil {
		return "", fmt.Errorf("pdftoppm: %w", err)
	}
	img := prefix + ".png"
	defer os.Remove(img)
	var stdout bytes.Buffer
	if err := run(ctx, &stdout, t.Tesseract, img, "stdout", "-l", opts.Langs, "--psm", "3"); err != nil {
		return "", fmt.Errorf("tesseract: %w", err)
	}
	return clean(stdout.String()), nil
}

// run starts one program and waits; on timeout the process is killed.
func run(ctx context.Context, stdout *bytes.Buffer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if stdout != nil { // a nil *bytes.Buffer in the interface would be written to
		cmd.Stdout = stdout
	}
	// Tesseract's own threads only slow parallel runs down (its docs
	// advise this limit when several run at once).
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("gave up: %w", ctx.Err())
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return fmt.Errorf("%w: %s", err, msg)
	}
	return nil
}

// clean keeps one text line per line: whitespace collapsed, blank lines
// and form feeds dropped.
func clean(s string) string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}
