package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/ocr"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/service"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ocrFlags are the flags of the commands that may OCR scanned PDF pages
// (index, setup, serve, serve-http, search).
type ocrFlags struct {
	on       bool
	langs    string
	maxPages int
	timeout  time.Duration

	once  sync.Once // the tools are looked up, and missing ones reported, once
	tools ocr.Tools
	err   error
	stats ocrStats
}

func (o *ocrFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.on, "ocr", false, "read the text of scanned PDF pages (no text layer) with pdftoppm and tesseract; needs --include-pdfs; the text is kept in the index, so a PDF is read once")
	fs.StringVar(&o.langs, "ocr-langs", ocr.DefaultLangs, "tesseract languages for --ocr, '+'-separated (e.g. eng+deu; each needs its tesseract-ocr-LANG package)")
	fs.IntVar(&o.maxPages, "ocr-max-pages", ocr.DefaultMaxPages, "with --ocr, read at most this many scanned pages per PDF")
	fs.DurationVar(&o.timeout, "ocr-timeout", ocr.DefaultTimeout, "with --ocr, give up on a page after this long (rendering and reading; a page given up is tried again by the next run)")
}

// args are the flags that repeat these settings (setup passes them on
// to index and to the client's serve command).
func (o *ocrFlags) args() []string {
	if !o.on {
		return nil
	}
	out := []string{"--ocr"}
	if o.langs != ocr.DefaultLangs {
		out = append(out, "--ocr-langs", o.langs)
	}
	if o.maxPages != ocr.DefaultMaxPages {
		out = append(out, "--ocr-max-pages", fmt.Sprint(o.maxPages))
	}
	if o.timeout != ocr.DefaultTimeout {
		out = append(out, "--ocr-timeout", o.timeout.String())
	}
	return out
}

// langsPattern is what --ocr-langs may hold (tesseract language names).
var langsPattern = regexp.MustCompile(`^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$`)

// check refuses inconsistent OCR flags.
func (o *ocrFlags) check(pdfs bool) error {
	switch {
	case !o.on:
		return nil
	case !pdfs:
		return usageError("--ocr reads scanned PDFs: add --include-pdfs")
	case !langsPattern.MatchString(o.langs):
		return usageError("--ocr-langs %q: want tesseract language names joined by '+', e.g. eng+deu", o.langs)
	case o.maxPages <= 0:
		return usageError("--ocr-max-pages %d: want a positive number", o.maxPages)
	case o.timeout <= 0:
		return usageError("--ocr-timeout %v: want a positive duration, e.g. 2m", o.timeout)
	}
	return nil
}

// key is what of the flags changes the text OCR gives a page.
func (o *ocrFlags) key() service.OCR {
	return service.OCR{On: o.on, Langs: o.langs, MaxPages: o.maxPages}
}

// reader returns the OCR of scanned pages with cache (may be nil), or nil
// when --ocr is off or the tools are missing: then warn hears it once,
// naming the packages to install, and PDFs are read as without --ocr.
func (o *ocrFlags) reader(cache *index.Index, warn func(string)) vault.PDFOCR {
	if !o.on {
		return nil
	}
	o.once.Do(func() {
		o.tools, o.err = ocr.Find(ocr.Options{})
		if o.err != nil {
			warn(fmt.Sprintf("--ocr: scanned PDF pages are not read: %v", o.err))
		}
	})
	if o.err != nil {
		return nil
	}
	r := &ocrReader{tools: o.tools, opts: ocr.Options{Langs: o.langs, MaxPages: o.maxPages, Timeout: o.timeout}, stats: &o.stats}
	if cache != nil {
		r.cache = cache
	}
	return r
}

// ocrCache keeps OCR text by file content hash (the persistent index).
type ocrCache interface {
	CachedOCR(ctx context.Context, hash, key string) ([]pdf.Page, bool)
	StoreOCR(ctx context.Context, hash, key string, pages []pdf.Page) error
}

// ocrStats count the OCR work of a process (the index summary shows it).
type ocrStats struct {
	files, pages, cached, failed atomic.Int64
	nanos                        atomic.Int64 // time spent reading, summed over files
}

// ocrReader implements vault.PDFOCR with package ocr and a cache.
type ocrReader struct {
	tools ocr.Tools
	opts  ocr.Options
	cache ocrCache
	stats *ocrStats
}

// Key implements vault.PDFOCR.
func (r *ocrReader) Key() string {
	return fmt.Sprintf("tesseract -l %s, %d dpi, at most %d pages", r.opts.Langs, ocr.DefaultDPI, r.opts.MaxPages)
}

// Pages implements vault.PDFOCR: the cached text of this content, or the
// pages read from a private copy of the file (never a vault path). The
// pages of a run that failed part way are kept too, so the next try
// reads only the rest.
func (r *ocrReader) Pages(ctx context.Context, f *os.File, hash string, pages []int) ([]pdf.Page, error) {
	key := r.Key()
	partialKey := key + " (partial)"
	var done []pdf.Page
	if r.cache != nil {
		if got, ok := r.cache.CachedOCR(ctx, hash, key); ok {
			r.stats.cached.Add(1)
			return got, nil
		}
		done, _ = r.cache.CachedOCR(ctx, hash, partialKey)
	}
	start := time.Now()
	read, err := ocr.ReadFrom(ctx, r.tools, f, "PDF", remaining(pages, done, r.opts.MaxPages), r.opts)
	r.stats.nanos.Add(int64(time.Since(start)))
	r.stats.files.Add(1)
	r.stats.pages.Add(int64(len(read)))
	out := done
	for _, p := range read {
		out = append(out, pdf.Page{Number: p.Number, Text: p.Text})
	}
	slices.SortFunc(out, func(a, b pdf.Page) int { return a.Number - b.Number })
	if err != nil {
		r.stats.failed.Add(1)
		if r.cache != nil && len(read) > 0 {
			_ = r.cache.StoreOCR(ctx, hash, partialKey, out) // best effort: the next try resumes here
		}
		return out, err
	}
	if r.cache != nil {
		// A failed store only costs a second reading later.
		_ = r.cache.StoreOCR(ctx, hash, key, out)
	}
	return out, nil
}

// remaining are the first maxPages of pages, less those already read.
func remaining(pages []int, done []pdf.Page, maxPages int) []int {
	if len(pages) > maxPages {
		pages = pages[:maxPages]
	}
	var out []int
	for _, n := range pages {
		if !slices.ContainsFunc(done, func(p pdf.Page) bool { return p.Number == n }) {
			out = append(out, n)
		}
	}
	return out
}

// summary describes the OCR work done ("" when none was asked for).
func (o *ocrFlags) summary() string {
	if !o.on || o.err != nil {
		return ""
	}
	s := &o.stats
	secs := time.Duration(s.nanos.Load()).Seconds()
	line := fmt.Sprintf("OCR: %d pages of %d PDFs read (%.1fs of OCR time", s.pages.Load(), s.files.Load(), secs)
	if secs > 0 {
		line += fmt.Sprintf(", %.2f pages/s per reader", float64(s.pages.Load())/secs)
	}
	line += ")"
	line += fmt.Sprintf("; %d PDFs from the OCR cache", s.cached.Load())
	if n := s.failed.Load(); n > 0 {
		line += fmt.Sprintf("; %d failed (see warnings)", n)
	}
	return line
}
