package main

import (
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
)

// TestRerankFlag checks that a reranker that cannot be loaded stops the
// command with an error saying what to do.
func TestRerankFlag(t *testing.T) {
	cache := t.TempDir()
	notInstalled := "install-model ms-marco-MiniLM-L-6-v2"
	if !onnx.Available {
		notInstalled = "ort build"
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown model", []string{"--rerank", "no-such-reranker"}, "install-model"},
		{"an embedding model", []string{"--rerank", "all-MiniLM-L6-v2"}, "is an embedding model"},
		{"not installed", []string{"--rerank", "ms-marco-MiniLM-L-6-v2"}, notInstalled},
		{"top-n out of range", []string{"--rerank", "ms-marco-MiniLM-L-6-v2", "--rerank-top-n", "0"}, "--rerank-top-n must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"search", "--vault", fixtureVault, "--no-index", "--model-dir", cache}, tt.args...)
			code, _, stderr := runCLI(t, append(args, "bread")...)
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", code, stderr, tt.want)
			}
		})
	}
}
