package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

func searchSignals(t *testing.T, args ...string) (signals []string, stderr string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"search", "--vault", fixtureVault, "--json", "levain"}, args...)...)
	if code != 0 {
		t.Fatalf("search %v: code %d, stderr %q", args, code, stderr)
	}
	var out tools.SearchOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out.SignalsUsed, stderr
}

// TestSearchUsesExistingIndex: after "enquire-mcp index", search adds
// BM25 without --persistent-index; --no-index turns it off; a search
// asking for other PDF settings leaves the index alone.
func TestSearchUsesExistingIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if got, _ := searchSignals(t); slices.Contains(got, "bm25") {
		t.Fatalf("no index yet, signals %v", got)
	}
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault); code != 0 {
		t.Fatalf("index: %d %s", code, stderr)
	}
	if got, _ := searchSignals(t); !slices.Contains(got, "bm25") || !slices.Contains(got, "tfidf") {
		t.Fatalf("with an index at the default location, signals %v", got)
	}
	if got, _ := searchSignals(t, "--no-index"); slices.Contains(got, "bm25") {
		t.Fatalf("--no-index: signals %v", got)
	}
	// A search cannot add PDFs to the shared index: it says so and
	// searches the index as kept.
	if got, stderr := searchSignals(t, "--include-pdfs"); !slices.Contains(got, "bm25") || !strings.Contains(stderr, "settings: PDFs: excluded for this search too") {
		t.Fatalf("search --include-pdfs: signals %v, stderr %q", got, stderr)
	}
	if got, _ := searchSignals(t); !slices.Contains(got, "bm25") {
		t.Fatalf("the index was rebuilt or damaged by the --include-pdfs run: %v", got)
	}
	if code, _, stderr := runCLI(t, "search", "--vault", fixtureVault, "x", "--no-index", "--persistent-index"); code != 2 || !strings.Contains(stderr, "--no-index contradicts") {
		t.Fatalf("--no-index --persistent-index: %d %q", code, stderr)
	}
}

// TestServeReadyLineNamesIndex starts the binary against a vault with an
// index at the default location: the ready line names the signals and
// why the index is on.
func TestServeReadyLineNamesIndex(t *testing.T) {
	bin := buildBinary(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if out, err := exec.Command(bin, "index", "--vault", fixtureVault).CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--vault", fixtureVault)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	log := stderr.String()
	if !strings.Contains(log, "signals=\"[bm25 tfidf]\"") && !strings.Contains(log, "signals=\"[tfidf bm25]\"") || !strings.Contains(log, `index="found at the default location"`) {
		t.Fatalf("ready line does not say BM25 is on from the found index:\n%s", log)
	}
}
