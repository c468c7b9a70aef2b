package main

import (
	"context"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestClearEmbeddingsKeepsTheIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if _, stdout, _ := runCLI(t, "clear-embeddings", "--vault", fixtureVault); !strings.Contains(stdout, "no index") {
		t.Fatalf("no index: %q", stdout)
	}
	if code, _, stderr := runCLI(t, "build-embeddings", "--vault", fixtureVault); code != 0 {
		t.Fatal(stderr)
	}
	root, _ := vault.RealRoot(fixtureVault)
	p := mustDefaultPath(t, root)
	before, err := index.Inspect(context.Background(), p)
	if err != nil || before.Vectors == 0 {
		t.Fatalf("before: %+v %v", before, err)
	}
	code, stdout, stderr := runCLI(t, "clear-embeddings", "--vault", fixtureVault)
	if code != 0 || !strings.Contains(stdout, "cleared") {
		t.Fatalf("%d %q %q", code, stdout, stderr)
	}
	after, err := index.Inspect(context.Background(), p)
	if err != nil || after.Vectors != 0 || after.EmbeddingModel != "" || after.Chunks != before.Chunks || after.Files != before.Files {
		t.Fatalf("after: %+v %v", after, err)
	}
	if _, stdout, _ := runCLI(t, "clear-embeddings", "--vault", fixtureVault); !strings.Contains(stdout, "no embeddings") {
		t.Fatalf("second clear: %q", stdout)
	}
}
