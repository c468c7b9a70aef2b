// Package ocrtest makes scanned PDFs for tests: pages that are only an
// image of text, as a scanner makes them, optionally next to pages with a
// text layer. The pixels come from pdftoppm, so it needs the OCR tools.
package ocrtest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/ocr"
)

// NeedTools finds the OCR programs. CI installs them (.ci/run), so there
// (CI set) a missing tool fails the test; elsewhere the test is skipped
// with the reason.
func NeedTools(t testing.TB) ocr.Tools {
	t.Helper()
	tools, err := ocr.Find(ocr.Options{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have the OCR tools: %v", err)
		}
		t.Skipf("no OCR tools here (%v); CI installs them", err)
	}
	return tools
}

// Page is one page of a generated PDF.
type Page struct {
	Text    string // one line of ASCII text (no parentheses or backslashes)
	Scanned bool   // an image of the text instead of a text layer
}

// WritePDF writes a PDF of the given pages to path.
func WritePDF(t testing.TB, tools ocr.Tools, path string, pages []Page) {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	var kids bytes.Buffer
	for _, p := range pages {
		page := len(objs) + 1
		fmt.Fprintf(&kids, "%d 0 R ", page)
		if !p.Scanned {
			content := fmt.Sprintf("BT /F1 28 Tf 40 300 Td (%s) Tj ET", p.Text)
			objs = append(objs,
				fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", page+1, page+2),
				stream("", content),
				"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
			continue
		}
		w, h, pixels := render(t, tools, p.Text)
		draw := "q 612 0 0 400 0 0 cm /Im0 Do Q"
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] /Contents %d 0 R /Resources << /XObject << /Im0 %d 0 R >> >> >>", page+1, page+2),
			stream("", draw),
			stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode ", w, h), string(deflate(pixels))))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), len(pages))
	write(t, path, objs)
}

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s/Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

func deflate(b []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// render typesets text in a one-page PDF and returns its grayscale pixels.
func render(t testing.TB, tools ocr.Tools, text string) (w, h int, pixels []byte) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "typeset.pdf")
	content := fmt.Sprintf("BT /F1 28 Tf 40 300 Td (%s) Tj ET", text)
	write(t, src, []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream("", content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
	prefix := filepath.Join(dir, "pixels")
	if out, err := exec.Command(tools.Pdftoppm, "-r", "150", "-gray", "-singlefile", src, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pgm, err := os.ReadFile(prefix + ".pgm")
	if err != nil {
		t.Fatal(err)
	}
	// Header: "P5", width, height, maxval, each ended by one whitespace.
	var fields []string
	start := 0
	for i := 0; i < len(pgm) && len(fields) < 4; i++ {
		if c := pgm[i]; c == ' ' || c == '\n' || c == '\r' || c == '\t' {
			fields = append(fields, string(pgm[start:i]))
			start = i + 1
		}
	}
	if len(fields) != 4 || fields[0] != "P5" || fields[3] != "255" {
		t.Fatalf("pgm header %q", fields)
	}
	fmt.Sscan(fields[1], &w)
	fmt.Sscan(fields[2], &h)
	if len(pgm) < start+w*h {
		t.Fatalf("pgm of %d bytes is short for %dx%d", len(pgm), w, h)
	}
	return w, h, pgm[start : start+w*h]
}

// write writes objects as a PDF with a correct xref table.
func write(t testing.TB, path string, objs []string) {
	t.Helper()
	if err := os.WriteFile(path, encode(objs), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TextPDF is a one-page PDF showing text in Helvetica: a text layer,
// nothing to read by OCR, made without the OCR tools.
func TextPDF(text string) []byte {
	return encode([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream("", fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// encode is objects as a PDF with a correct xref table.
func encode(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// BlankPDF writes a one-page PDF with nothing on its page: no text layer,
// like a scan, but made without the OCR tools.
func BlankPDF(t testing.TB, path string) {
	t.Helper()
	write(t, path, []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] >>",
	})
}
