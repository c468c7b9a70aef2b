package models

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

// TestOpenTransformer checks the errors of a transformer model that
// cannot run: the default build names the ort build, the ort build names
// install-model; a folder with an ONNX model is recognised by its layout.
func TestOpenTransformer(t *testing.T) {
	cache := t.TempDir()
	folder := filepath.Join(t.TempDir(), "m")
	if err := os.MkdirAll(filepath.Join(folder, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, onnx.ModelFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !isORT(folder) || !isORT("BGE-small-en-v1.5") || isORT("potion-base-8M") || isORT(t.TempDir()) {
		t.Error("isORT misclassifies")
	}
	_, err := Open(context.Background(), "all-MiniLM-L6-v2", Options{CacheDir: cache})
	switch {
	case !onnx.Available && !errors.Is(err, onnx.ErrNeedsORT):
		t.Errorf("default build: %v, want ErrNeedsORT", err)
	case onnx.Available && (err == nil || !strings.Contains(err.Error(), "install-model all-MiniLM-L6-v2")):
		t.Errorf("ort build, not installed: %v", err)
	}
	if _, err := OpenReranker(context.Background(), "bge-small-en-v1.5", Options{CacheDir: cache}); err == nil || !strings.Contains(err.Error(), "is an embedding model") {
		t.Errorf("embedding model as reranker: %v", err)
	}
	if _, err := OpenReranker(context.Background(), "nope", Options{CacheDir: cache}); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "install-model") {
		t.Errorf("unknown reranker: %v", err)
	}
}
