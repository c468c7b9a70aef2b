package pdf

import (
	"errors"
	"strings"
	"unicode"
)

// Sentinel errors returned (wrapped) by Extract; match them with errors.Is.
var (
	// ErrEncrypted reports a PDF that cannot be read without a password, or
	// whose encryption scheme the PDF library does not support (AES-256,
	// 40-bit RC4).
	ErrEncrypted = errors.New("pdf: encrypted")
	// ErrTooLarge reports a file larger than Options.MaxBytes.
	ErrTooLarge = errors.New("pdf: file too large")
	// ErrCorrupt reports a file that is not a PDF or cannot be parsed.
	ErrCorrupt = errors.New("pdf: corrupt or not a PDF")
)

// Page is the text of one PDF page.
type Page struct {
	// Number is the 1-based page number.
	Number int
	// Text is the page's cleaned text: valid UTF-8 in NFC, no NUL or other
	// control characters, runs of whitespace within a line collapsed to a
	// single space, one text line per line, lines trimmed, no blank lines.
	Text string
}

// Document is the text extracted from one PDF file.
type Document struct {
	// NumPages is the number of pages in the file.
	NumPages int
	// Pages holds one entry per page read, in order, including pages
	// without text.
	Pages []Page
	// Truncated reports that not every page was read or that page text was
	// cut short because of Options.MaxPages or Options.MaxTextBytes.
	Truncated bool
}

// HasText reports whether any page has non-space text. It is false for
// image-only (scanned) PDFs without a text layer.
func (d *Document) HasText() bool {
	if d == nil {
		return false
	}
	for _, p := range d.Pages {
		if strings.IndexFunc(p.Text, func(r rune) bool { return !unicode.IsSpace(r) }) >= 0 {
			return true
		}
	}
	return false
}
