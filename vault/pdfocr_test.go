package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/pdf"
)

// stubOCR reads each page as "ocr N", failing at page failAt (0: never).
type stubOCR struct {
	failAt int
	asked  [][]int
}

func (s *stubOCR) Key() string { return "stub" }

func (s *stubOCR) Pages(_ context.Context, _ *os.File, _ string, pages []int) ([]pdf.Page, error) {
	s.asked = append(s.asked, pages)
	var out []pdf.Page
	for _, n := range pages {
		if n == s.failAt {
			return out, errors.New("tesseract: killed")
		}
		out = append(out, pdf.Page{Number: n, Text: "ocr " + string(rune('0'+n))})
	}
	return out, nil
}

func TestPDFReaderOCR(t *testing.T) {
	tests := []struct {
		name      string
		pages     []pdf.Page // what extraction finds
		failAt    int
		wantAsked []int
		wantOCR   []bool // per page
		wantKey   string
		warning   string // substring ("" = no warning)
	}{
		{"all scanned", []pdf.Page{{Number: 1}, {Number: 2}}, 0, []int{1, 2}, []bool{true, true}, "stub", ""},
		{"mixed: text pages are not OCRed", []pdf.Page{{Number: 1, Text: "typed"}, {Number: 2, Text: " "}}, 0, []int{2}, []bool{false, true}, "stub", ""},
		{"text only: nothing to read", []pdf.Page{{Number: 1, Text: "typed"}}, 0, nil, []bool{false}, "", ""},
		{"failure keeps what was read, retried later", []pdf.Page{{Number: 1}, {Number: 2}}, 2, []int{1, 2}, []bool{true, false}, "", "OCR failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "s.pdf"), []byte("%PDF stand-in"), 0o644); err != nil {
				t.Fatal(err)
			}
			stub := &stubOCR{failAt: tt.failAt}
			extract := func(context.Context, *os.File, pdf.Options) (*pdf.Document, error) {
				return &pdf.Document{NumPages: len(tt.pages), Pages: tt.pages}, nil
			}
			s, err := Load(context.Background(), root, Options{PDFs: true, PDF: PDFReader{Extract: extract, OCR: stub}})
			if err != nil {
				t.Fatal(err)
			}
			var n *Note
			for _, x := range s.Notes {
				if x.Path == "s.pdf" {
					n = x
				}
			}
			if n == nil {
				t.Fatalf("no note; warnings %v", s.Warnings)
			}
			var asked []int
			if len(stub.asked) > 0 {
				asked = stub.asked[0]
			}
			if !reflect.DeepEqual(asked, tt.wantAsked) {
				t.Errorf("asked for pages %v, want %v", asked, tt.wantAsked)
			}
			var ocr []bool
			for _, p := range n.Pages {
				ocr = append(ocr, p.OCR)
				if p.OCR != n.PageOCR(p.Number) {
					t.Errorf("PageOCR(%d) disagrees", p.Number)
				}
			}
			if !reflect.DeepEqual(ocr, tt.wantOCR) || n.OCRKey != tt.wantKey {
				t.Errorf("OCR flags %v key %q, want %v %q", ocr, n.OCRKey, tt.wantOCR, tt.wantKey)
			}
			if tt.wantOCR[0] && !strings.Contains(n.Body, "ocr 1") {
				t.Errorf("body %q lacks the OCR text", n.Body)
			}
			var warns []string
			for _, w := range s.Warnings {
				warns = append(warns, w.Message)
			}
			got := strings.Join(warns, " | ")
			if (tt.warning == "") != (got == "") || !strings.Contains(got, tt.warning) {
				t.Errorf("warnings %q, want %q", got, tt.warning)
			}
		})
	}
}

func TestDropNoTextLayer(t *testing.T) {
	msg := noTextLayer + " (3 pages, scanned or image-only); indexed by name only"
	tests := []struct{ in, want string }{
		{msg, ""},
		{"other", "other"},
		{"a; " + msg, "a"},
		{msg + "; b", "b"},
		{"a; " + msg + "; b", "a; b"},
	}
	for _, tt := range tests {
		if got := dropNoTextLayer(tt.in); got != tt.want {
			t.Errorf("dropNoTextLayer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
