// Package pdf extracts plain text, page by page, from PDF files so that PDF
// attachments in a vault can be indexed and searched with "[page: N]"
// markers.
//
// Extract is the only entry point. It parses the file with
// github.com/ledongthuc/pdf, but lays the text out itself: the library's
// Page.GetPlainText concatenates text runs without the spaces that PDFs
// express as glyph positions (LaTeX output becomes "Thereareapproaches..."),
// so this package interprets the content stream with the library's exported
// pieces (Interpret, Font.Encoder, font widths) and rebuilds words and lines
// from glyph positions (see layout.go).
//
// Extraction is bounded by Options (file size, pages, text bytes), honours
// context cancellation between pages (and periodically inside one), and
// never panics: malformed input is reported as ErrCorrupt.
package pdf
