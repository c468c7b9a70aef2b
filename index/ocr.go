package index

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fileRowColumns are the columns scanFileRow reads, in order.
const fileRowColumns = `path, kind, size, mtime, hash, warning, blank, ocr`

func scanFileRow(st *sqlite3.Stmt) fileRow {
	return fileRow{kind: st.ColumnText(1), size: st.ColumnInt64(2), mtime: st.ColumnInt64(3),
		hash: st.ColumnText(4), warning: st.ColumnText(5), blank: st.ColumnInt(6), ocr: st.ColumnText(7)}
}

// needsOCR reports whether an unchanged file must be read again because
// its scanned pages were not read with the source's OCR settings.
func (s Source) needsOCR(path string, r fileRow) bool { return s.ocr != nil && s.ocr(path, r) }

// diskOCR rereads the PDFs with pages without text when the reader does
// OCR with settings other than those of the stored text.
func diskOCR(pdfs vault.PDFReader) func(string, fileRow) bool {
	if pdfs.OCR == nil {
		return nil
	}
	key := pdfs.OCR.Key()
	return func(_ string, r fileRow) bool { return r.kind == vault.KindPDF && r.blank > 0 && r.ocr != key }
}

// notesOCR rewrites the PDFs whose loaded note was read with other OCR
// settings than the stored one (the loader read their scanned pages).
func notesOCR(byPath map[string]*vault.Note) func(string, fileRow) bool {
	return func(p string, r fileRow) bool {
		n := byPath[p]
		return n != nil && n.Kind == vault.KindPDF && n.OCRKey != r.ocr
	}
}

// ocrPages lists the pages of a note whose text OCR read.
func ocrPages(n *vault.Note) []int {
	if n == nil {
		return nil
	}
	var out []int
	for _, p := range n.Pages {
		if p.OCR {
			out = append(out, p.Number)
		}
	}
	return out
}

// blankPages counts the pages without a text layer: empty ones and those
// OCR read.
func blankPages(n *vault.Note, pages []pdf.Page) int {
	count := 0
	for i, p := range pages {
		if strings.TrimSpace(p.Text) == "" || (i < len(n.Pages) && n.Pages[i].OCR) {
			count++
		}
	}
	return count
}

// dropOrphanOCR deletes the cached OCR text of contents no file has any
// more (deleted, changed, or hidden by the privacy rules).
func dropOrphanOCR(c *sqlite3.Conn) error {
	return c.Exec(`DELETE FROM ocr WHERE hash NOT IN (SELECT hash FROM files)`)
}

// CachedOCR returns the OCR text stored for the file content hash read
// with the settings key.
func (ix *Index) CachedOCR(ctx context.Context, hash, key string) ([]pdf.Page, bool) {
	var pages []pdf.Page
	found := false
	err := ix.reader(ctx, func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`SELECT pages FROM ocr WHERE hash = ? AND key = ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := bindAll(st, hash, key); err != nil {
			return err
		}
		if !st.Step() {
			return st.Err()
		}
		found = true
		return json.Unmarshal([]byte(st.ColumnText(0)), &pages)
	})
	return pages, found && err == nil
}

// StoreOCR keeps the OCR text of a file content hash read with the
// settings key, so that the same content is never read twice. It is
// dropped by the first sync after no file has that content any more.
func (ix *Index) StoreOCR(ctx context.Context, hash, key string, pages []pdf.Page) error {
	b, err := json.Marshal(pages)
	if err != nil {
		return err
	}
	err = ix.tx(func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(`INSERT OR REPLACE INTO ocr(hash, key, pages) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		return bindExec(st, hash, key, string(b))
	})
	if err != nil {
		return fmt.Errorf("index %s: store OCR text: %w", ix.path, err)
	}
	return ctx.Err()
}
