package ocr

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

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
