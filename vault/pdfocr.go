package vault

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/pdf"
)

// PDFOCR reads the text of scanned PDF pages (pages without a text layer)
// from their images. The vault layer only picks the pages and lays their
// text out; how they are read (external programs, a cache) is the
// implementation's business.
type PDFOCR interface {
	// Key names the settings pages are read with (languages, page cap):
	// pages read under another key are read again.
	Key() string
	// Pages reads the given 1-based pages of the PDF opened as f, whose
	// content hash is hash; it must read f with ReadAt only. On an error
	// the pages read before it may be returned too.
	Pages(ctx context.Context, f *os.File, hash string, pages []int) ([]pdf.Page, error)
}

// noTextLayer starts the warning of a PDF without any text layer.
const noTextLayer = "PDF has no text layer"

// ocr reads the scanned pages of t that were not read with the current
// OCR settings. A failure keeps what was read, warns, and leaves OCRKey
// empty so that the next sync tries again.
func (r PDFReader) ocr(ctx context.Context, f File, t PDFText) PDFText {
	key := r.OCR.Key()
	if t.Skipped || t.Hash == "" || t.OCRKey == key {
		return t
	}
	need := scannedPages(t)
	if len(need) == 0 {
		return t
	}
	fh, err := openWalked(f)
	if err == nil {
		defer fh.Close()
		var hash string
		if hash, err = hashFile(fh); err == nil && hash != t.Hash {
			err = fmt.Errorf("the file changed while being read")
		}
	}
	if err != nil {
		t.Warning = joinWarnings(t.Warning, fmt.Sprintf("OCR not run (%v); retried on the next run", err))
		return t
	}
	got, err := r.OCR.Pages(ctx, fh, t.Hash, need)
	t = withOCR(t, need, got)
	if err != nil {
		t.Warning = joinWarnings(t.Warning, fmt.Sprintf("OCR failed (%v); retried on the next run", err))
		return t
	}
	t.OCRKey = key
	if slices.ContainsFunc(got, func(p pdf.Page) bool { return strings.TrimSpace(p.Text) != "" }) {
		t.Warning = dropNoTextLayer(t.Warning)
	}
	return t
}

// scannedPages are the pages without extracted text: empty ones, and
// those whose text OCR read before.
func scannedPages(t PDFText) []int {
	var out []int
	for _, p := range t.Pages {
		if strings.TrimSpace(p.Text) == "" || slices.Contains(t.OCR, p.Number) {
			out = append(out, p.Number)
		}
	}
	return out
}

// withOCR replaces the text of the pages in need by what OCR read (empty
// for those it did not read) and records which pages it read.
func withOCR(t PDFText, need []int, got []pdf.Page) PDFText {
	read := make(map[int]string, len(got))
	for _, p := range got {
		read[p.Number] = nfc(p.Text)
	}
	pages := slices.Clone(t.Pages)
	t.OCR = nil
	for i, p := range pages {
		if !slices.Contains(need, p.Number) {
			continue
		}
		text, ok := read[p.Number]
		pages[i].Text = text
		if ok {
			t.OCR = append(t.OCR, p.Number)
		}
	}
	t.Pages = pages
	return t
}

// dropNoTextLayer removes the "no text layer" warning once OCR found text.
func dropNoTextLayer(w string) string {
	const end = "indexed by name only"
	i := strings.Index(w, noTextLayer)
	if i < 0 {
		return w
	}
	j := strings.Index(w[i:], end)
	if j < 0 {
		return w
	}
	rest := strings.TrimPrefix(w[i+j+len(end):], "; ")
	return joinWarnings(strings.TrimSuffix(w[:i], "; "), rest)
}

func joinWarnings(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}
