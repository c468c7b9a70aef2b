// Package pdf extracts plain text, page by page, from PDF files so that PDF
// attachments in a vault can be indexed and searched with "[page: N]"
// markers.
//
// Extract is the entry point. It parses the file with
// github.com/ledongthuc/pdf, but lays the text out itself: the library's
// Page.GetPlainText concatenates text runs without the spaces that PDFs
// express as glyph positions (LaTeX output becomes "Thereareapproaches..."),
// so this package interprets the content stream with the library's exported
// pieces (Interpret, Font.Encoder, font widths) and rebuilds words and lines
// from glyph positions (see layout.go).
//
// Extraction is bounded by Options (file size, pages, text bytes), honours
// context cancellation between pages (and periodically inside one), and
// never panics: malformed input is reported as ErrCorrupt, and a page whose
// content fails part way keeps the text found before the failure.
//
// # Hostile files
//
// The library was not written for hostile input: tiny crafted files can
// make it loop forever, recurse until the stack overflows, or allocate
// until the process aborts, none of which recover can catch. Extract
// defends against every such file known (see checkXref for the
// cross-reference chain and object streams, checkStream and psScanner
// for content streams and CMaps), refusing the file or skipping the
// stream. It is defended, not guaranteed hang- or abort-safe against every
// crafted file: production code runs untrusted files through Isolated,
// which extracts in a child process bounded in time and memory.
package pdf
