package ocr_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/ocr"
	"github.com/enquire-mcp/enquire-mcp/ocr/ocrtest"
)

// scannedPDF writes a one-page PDF whose page is only an image of words.
func scannedPDF(t *testing.T, tools ocr.Tools, words string) string {
	t.Helper()
	scan := filepath.Join(t.TempDir(), "scan.pdf")
	ocrtest.WritePDF(t, tools, scan, []ocrtest.Page{{Text: words, Scanned: true}})
	return scan
}

func TestReadScannedPage(t *testing.T) {
	tools := ocrtest.NeedTools(t)
	scan := scannedPDF(t, tools, "INVOICE 4217 SOURDOUGH FLOUR")
	pages, err := ocr.Read(context.Background(), tools, scan, []int{1}, ocr.Options{})
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
	tools := ocrtest.NeedTools(t)
	scan := scannedPDF(t, tools, "BOUNDED")
	// The page cap: three pages asked, one allowed.
	pages, err := ocr.Read(context.Background(), tools, scan, []int{1, 1, 1}, ocr.Options{MaxPages: 1})
	if err != nil || len(pages) != 1 {
		t.Fatalf("MaxPages 1: %d pages, %v", len(pages), err)
	}
	// A page that does not exist is an error naming it, not a crash.
	if _, err := ocr.Read(context.Background(), tools, scan, []int{7}, ocr.Options{}); err == nil || !strings.Contains(err.Error(), "page 7") {
		t.Fatalf("missing page: %v", err)
	}
	// The timeout kills a slow tool.
	slowTool := filepath.Join(t.TempDir(), "slow.sh")
	if err := os.WriteFile(slowTool, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	slow := ocr.Tools{Pdftoppm: slowTool, Tesseract: tools.Tesseract}
	start := time.Now()
	if _, err := ocr.Read(context.Background(), slow, scan, []int{1}, ocr.Options{Timeout: 300 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("timeout: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("timeout took %s", d)
	}
}
