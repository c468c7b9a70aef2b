package ocr

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writePDF writes objects as a PDF with a correct xref table.
func writePDF(t *testing.T, path string, objs []string) {
	t.Helper()
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
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scannedPDF makes what a scanner makes: a page that is only an image of
// text. The text is typeset in a first PDF, rendered to pixels with
// pdftoppm, and those pixels wrapped as the only content of a second PDF.
func scannedPDF(t *testing.T, tools Tools, dir string, words string) string {
	t.Helper()
	text := filepath.Join(dir, "typeset.pdf")
	content := fmt.Sprintf("BT /F1 28 Tf 40 300 Td (%s) Tj ET", words)
	writePDF(t, text, []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
	prefix := filepath.Join(dir, "pixels")
	if out, err := exec.Command(tools.Pdftoppm, "-r", "150", "-gray", "-singlefile", text, prefix).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pgm, err := os.ReadFile(prefix + ".pgm")
	if err != nil {
		t.Fatal(err)
	}
	// Header: "P5", width, height, maxval, each ended by one whitespace.
	var fields []string
	hdr, start := 0, 0
	for i := 0; i < len(pgm) && len(fields) < 4; i++ {
		if pgm[i] == ' ' || pgm[i] == '\n' || pgm[i] == '\r' || pgm[i] == '\t' {
			fields = append(fields, string(pgm[start:i]))
			start, hdr = i+1, i+1
		}
	}
	var w, h int
	if len(fields) != 4 || fields[0] != "P5" || fields[3] != "255" {
		t.Fatalf("pgm header %q", fields)
	}
	fmt.Sscan(fields[1], &w)
	fmt.Sscan(fields[2], &h)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(pgm[hdr : hdr+w*h])
	zw.Close()
	draw := "q 612 0 0 400 0 0 cm /Im0 Do Q"
	scan := filepath.Join(dir, "scan.pdf")
	writePDF(t, scan, []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 400] /Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(draw), draw),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", w, h, z.Len(), z.Bytes()),
	})
	return scan
}

// needTools finds the OCR programs; CI installs them (.ci/run), so there
// a missing tool fails the test instead of skipping it.
func needTools(t *testing.T) Tools {
	t.Helper()
	tools, err := Find(Options{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have the OCR tools: %v", err)
		}
		t.Skipf("no OCR tools here (%v); CI installs them", err)
	}
	return tools
}

func TestReadScannedPage(t *testing.T) {
	tools := needTools(t)
	scan := scannedPDF(t, tools, t.TempDir(), "INVOICE 4217 SOURDOUGH FLOUR")
	pages, err := Read(context.Background(), tools, scan, []int{1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].Number != 1 {
		t.Fatalf("pages %+v", pages)
	}
	for _, w := range []string{"INVOICE", "4217", "SOURDOUGH", "FLOUR"} {
		if !strings.Contains(pages[0].Text, w) {
			t.Errorf("OCR text %q lacks %q", pages[0].Text, w)
		}
	}
}

func TestReadBounds(t *testing.T) {
	tools := needTools(t)
	scan := scannedPDF(t, tools, t.TempDir(), "BOUNDED")
	// The page cap: three pages asked, one allowed.
	pages, err := Read(context.Background(), tools, scan, []int{1, 1, 1}, Options{MaxPages: 1})
	if err != nil || len(pages) != 1 {
		t.Fatalf("MaxPages 1: %d pages, %v", len(pages), err)
	}
	// A page that does not exist is an error naming it, not a crash.
	if _, err := Read(context.Background(), tools, scan, []int{7}, Options{}); err == nil || !strings.Contains(err.Error(), "page 7") {
		t.Fatalf("missing page: %v", err)
	}
	// The timeout kills a slow tool.
	slow := Tools{Pdftoppm: writeScript(t, "sleep 30"), Tesseract: tools.Tesseract}
	start := time.Now()
	if _, err := Read(context.Background(), slow, scan, []int{1}, Options{Timeout: 300 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("timeout: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("timeout took %s", d)
	}
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "slow.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindNamesThePackages(t *testing.T) {
	none := func(string) (string, error) { return "", exec.ErrNotFound }
	_, err := Find(Options{LookPath: none})
	if !errors.Is(err, ErrToolsMissing) || !strings.Contains(err.Error(), "poppler-utils") || !strings.Contains(err.Error(), "tesseract-ocr") {
		t.Fatalf("err = %v", err)
	}
	onlyPoppler := func(name string) (string, error) {
		if name == "pdftoppm" {
			return "/usr/bin/pdftoppm", nil
		}
		return "", exec.ErrNotFound
	}
	if _, err := Find(Options{LookPath: onlyPoppler}); err == nil || strings.Contains(err.Error(), "poppler-utils") {
		t.Fatalf("only tesseract missing: %v", err)
	}
}

func TestClean(t *testing.T) {
	if got := clean("  Hello   world \n\n\f\nsecond\tline \n"); got != "Hello world\nsecond line" {
		t.Fatalf("clean = %q", got)
	}
}
