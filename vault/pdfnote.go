package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/pdf"
)

// PDFText is what extraction made of one PDF, as a cache keeps it.
type PDFText struct {
	Pages   []pdf.Page
	Hash    string
	Warning string
	// Skipped: the file could not be read at all (encrypted, corrupt,
	// too large); it has no note.
	Skipped bool
	// Retry: skipped for a reason outside the file (see Warning.Retry).
	Retry bool
	// OCR lists the pages whose text was read by OCR, and OCRKey the
	// settings it was read with ("": no OCR ran; see PDFOCR).
	OCR    []int
	OCRKey string
}

// PDFCache supplies the extraction of PDFs that have not changed (same
// size and modification time) since they were extracted.
type PDFCache interface {
	CachedPDF(ctx context.Context, path string, size int64, modTime time.Time) (PDFText, bool)
}

// PDFReader reads PDFs into notes.
type PDFReader struct {
	// Options bound the work on one file.
	Options pdf.Options
	// Extract does the extraction of a file opened through the vault
	// handle (nil: pdf.ExtractFile in this process; the command line uses
	// pdf.Isolated, so a hostile file cannot hang or abort the server).
	// It must read the file with ReadAt: the caller hashes it too.
	Extract func(ctx context.Context, f *os.File, opts pdf.Options) (*pdf.Document, error)
	// Cache, when set, supplies the text of PDFs that did not change.
	Cache PDFCache
	// OCR, when set, reads the pages that have no text layer (scans).
	OCR PDFOCR
}

// Read turns a PDF into a searchable note of kind "pdf": its pages' text
// separated by blank lines, with Note.Pages recording where each page
// starts. A PDF failure never stops a load: it is a warning, and the file
// is skipped (encrypted, corrupt, too large) or kept without text (no text
// layer).
func (r PDFReader) Read(ctx context.Context, f File) (*Note, []Warning) {
	t, ok := PDFText{}, false
	if r.Cache != nil {
		t, ok = r.Cache.CachedPDF(ctx, f.Path, f.Size, f.ModTime)
	}
	if !ok {
		t = r.extract(ctx, f)
	}
	if r.OCR != nil {
		t = r.ocr(ctx, f, t)
	}
	return pdfNote(f, t)
}

// extract reads a PDF's text and content hash.
func (r PDFReader) extract(ctx context.Context, f File) PDFText {
	extract := r.Extract
	if extract == nil {
		extract = pdf.ExtractFile
	}
	fh, err := openWalked(f)
	if err != nil {
		return PDFText{Skipped: true, Warning: fmt.Sprintf("unreadable PDF (%v); skipped", err)}
	}
	defer fh.Close()
	doc, err := extract(ctx, fh, r.Options)
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		return PDFText{Skipped: true, Warning: "PDF is encrypted; skipped"}
	case errors.Is(err, pdf.ErrTooLarge):
		return PDFText{Skipped: true, Warning: fmt.Sprintf("PDF of %d bytes is over the size cap; skipped", f.Size)}
	case errors.Is(err, pdf.ErrCorrupt), errors.Is(err, fs.ErrNotExist):
		return PDFText{Skipped: true, Warning: fmt.Sprintf("unreadable PDF (%v); skipped", err)}
	case err != nil:
		return PDFText{Skipped: true, Retry: true, Warning: fmt.Sprintf("PDF not extracted (%v); skipped, retried on the next run", err)}
	}
	t := PDFText{Pages: doc.Pages}
	t.Hash, err = hashFile(fh)
	if err != nil {
		return PDFText{Skipped: true, Warning: err.Error()}
	}
	switch {
	case !doc.HasText():
		t.Warning = fmt.Sprintf(noTextLayer+" (%d pages, scanned or image-only); indexed by name only", doc.NumPages)
	case doc.Truncated:
		t.Warning = fmt.Sprintf("PDF text cut at the page/text caps: %d of %d pages indexed", len(doc.Pages), doc.NumPages)
	}
	return t
}

func pdfNote(f File, t PDFText) (*Note, []Warning) {
	var warnings []Warning
	if t.Warning != "" {
		warnings = []Warning{{Path: f.Path, Message: t.Warning, Retry: t.Retry}}
	}
	if t.Skipped {
		return nil, warnings
	}
	n := &Note{Path: f.Path, Kind: KindPDF, Title: baseName(f.Path), BodyLine: 1,
		Size: f.Size, ModTime: f.ModTime, Hash: t.Hash, OCRKey: t.OCRKey}
	var b strings.Builder
	line := 1
	for i, p := range t.Pages {
		if i > 0 {
			b.WriteString("\n\n")
			line += 2
		}
		text := strings.TrimSpace(nfc(p.Text))
		n.Pages = append(n.Pages, Page{Number: p.Number, Line: line, OCR: slices.Contains(t.OCR, p.Number)})
		b.WriteString(text)
		line += strings.Count(text, "\n")
	}
	n.Body = b.String()
	return n, warnings
}

// PageTexts returns the text of each page of a PDF note (nil for
// markdown), the inverse of how ReadPDF laid them out.
func (n *Note) PageTexts() []pdf.Page {
	if len(n.Pages) == 0 {
		return nil
	}
	lines := strings.Split(n.Body, "\n")
	out := make([]pdf.Page, len(n.Pages))
	for i, p := range n.Pages {
		end := len(lines) + 1
		if i+1 < len(n.Pages) {
			end = n.Pages[i+1].Line - 1 // the blank separator line
		}
		out[i] = pdf.Page{Number: p.Number, Text: strings.Join(lines[p.Line-1:max(p.Line-1, end-1)], "\n")}
	}
	return out
}

// openWalked opens a walked file through its vault handle.
func openWalked(f File) (*os.File, error) {
	if f.fs == nil {
		return nil, errors.New("not found through the vault handle (vault.File made by hand?)")
	}
	fh, _, err := f.fs.OpenRegular(f.disk)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	return fh, nil
}

// hashFile hashes an opened file from its start (ReadAt: the extraction
// may have moved the offset, or share it with a child process).
func hashFile(fh *os.File) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(fh, 0, math.MaxInt64-1)); err != nil {
		return "", fmt.Errorf("unreadable: %v", err)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}
