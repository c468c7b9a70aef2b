package vault

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/pdf"
)

func TestPDFNoteLayoutRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		pages []pdf.Page
	}{
		{"two pages", []pdf.Page{{Number: 1, Text: "alpha\nbeta"}, {Number: 2, Text: "gamma"}}},
		{"empty middle page", []pdf.Page{{Number: 1, Text: "a"}, {Number: 2, Text: ""}, {Number: 3, Text: "c\nd\ne"}}},
		{"all empty", []pdf.Page{{Number: 1}, {Number: 2}}},
		{"one page", []pdf.Page{{Number: 1, Text: "only"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warnings := pdfNote(File{Path: "a/b.pdf"}, PDFText{Pages: tt.pages, Hash: "h"})
			if n == nil || len(warnings) != 0 {
				t.Fatalf("note %v, warnings %v", n, warnings)
			}
			if n.Kind != KindPDF || n.Title != "b" || n.Hash != "h" || len(n.Pages) != len(tt.pages) {
				t.Fatalf("note %+v", n)
			}
			if got := n.PageTexts(); !reflect.DeepEqual(got, tt.pages) {
				t.Fatalf("PageTexts = %+v, want %+v", got, tt.pages)
			}
			lines := strings.Split(n.Body, "\n")
			for _, p := range tt.pages {
				if p.Text == "" {
					continue
				}
				first := strings.Split(p.Text, "\n")[0]
				line := n.Pages[p.Number-1].Line
				if lines[line-1] != first || n.PageAt(line) != p.Number {
					t.Errorf("page %d starts at line %d %q, want %q", p.Number, line, lines[line-1], first)
				}
			}
		})
	}
}

func TestPDFNoteWarnings(t *testing.T) {
	if n, w := pdfNote(File{Path: "x.pdf"}, PDFText{Skipped: true, Warning: "PDF is encrypted; skipped"}); n != nil || len(w) != 1 {
		t.Fatalf("skipped: note %v warnings %v", n, w)
	}
	n, w := pdfNote(File{Path: "scan.pdf"}, PDFText{Pages: []pdf.Page{{Number: 1}}, Warning: "PDF has no text layer"})
	if n == nil || n.Body != "" || len(w) != 1 {
		t.Fatalf("no text layer: note %+v warnings %v", n, w)
	}
}

// fakeCache answers for one path.
type fakeCache struct {
	path  string
	text  PDFText
	calls int
}

func (c *fakeCache) CachedPDF(_ context.Context, path string, _ int64, _ time.Time) (PDFText, bool) {
	c.calls++
	return c.text, path == c.path
}

func TestLoadPDFs(t *testing.T) {
	ctx := context.Background()
	s, err := Load(ctx, "../testdata/vault", Options{PDFs: true})
	if err != nil {
		t.Fatal(err)
	}
	n := s.Note("Attachments/paper.pdf")
	if n == nil || n.Kind != KindPDF || len(n.Pages) != 2 || !strings.Contains(n.Body, "page two") || n.Hash == "" {
		t.Fatalf("paper.pdf note = %+v", n)
	}
	// Links to it still resolve as attachment links, by file name.
	for _, l := range s.Note("Syntax/Embeds.md").Links {
		if l.Target == "paper.pdf" && (l.Kind != LinkAttachment || l.Resolved != "Attachments/paper.pdf") {
			t.Fatalf("link %+v", l)
		}
	}
	if k, _ := s.Resolve("paper", "Home.md"); k != LinkUnresolved {
		t.Fatal("a PDF must not answer a bare [[paper]] link")
	}
	// A cache hit skips extraction.
	cache := &fakeCache{path: "Attachments/paper.pdf", text: PDFText{Pages: []pdf.Page{{Number: 1, Text: "from the cache"}}, Hash: "c"}}
	s, err = Load(ctx, "../testdata/vault", Options{PDFs: true, PDF: PDFReader{Cache: cache}})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Note("Attachments/paper.pdf"); cache.calls != 1 || n == nil || n.Body != "from the cache" || n.Hash != "c" {
		t.Fatalf("cache calls %d, note %+v", cache.calls, n)
	}
	// Without the option, no PDF notes.
	s, err = Load(ctx, "../testdata/vault", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Note("Attachments/paper.pdf") != nil {
		t.Fatal("PDF loaded without Options.PDFs")
	}
}
