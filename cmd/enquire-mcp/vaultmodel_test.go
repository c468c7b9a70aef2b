package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// TestBuildEmbeddingsVaultModel learns the vault model, checks that a
// second run over the same vault learns the same model (every vector
// kept), that search serves it, and that a damaged model file turns the
// signal off with a clear error while the search still answers.
func TestBuildEmbeddingsVaultModel(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ixFile := filepath.Join(t.TempDir(), "ix.db")
	build := func() string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "build-embeddings", "--vault", fixtureVault, "--index-file", ixFile, "--embedding-model", "vault")
		if code != 0 {
			t.Fatalf("build-embeddings: code %d, %s %s", code, stdout, stderr)
		}
		return stdout
	}
	if out := build(); !strings.Contains(out, "vault:ppmi-svd-") || strings.Contains(out, " 0 embedded") {
		t.Fatalf("first build: %s", out)
	}
	if out := build(); !strings.Contains(out, " 0 embedded") || strings.Contains(out, "replaced") {
		t.Fatalf("second build over the same vault re-embedded: %s", out)
	}
	search := func() (used []string, errs map[string]string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, "search", "--vault", fixtureVault, "--index-file", ixFile, "--json", "feeding the starter")
		if code != 0 {
			t.Fatalf("search: code %d, %s", code, stderr)
		}
		var res struct {
			SignalsUsed  []string          `json:"signals_used"`
			SignalErrors map[string]string `json:"signal_errors"`
			Matches      []struct{ Path string }
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Matches) == 0 {
			t.Fatalf("search output %s: %v", stdout, err)
		}
		return res.SignalsUsed, res.SignalErrors
	}
	if used, _ := search(); !slices.Contains(used, "embeddings") {
		t.Fatalf("signals used %q, want embeddings", used)
	}
	if err := os.WriteFile(index.VaultModelPath(ixFile), []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	used, errs := search()
	if slices.Contains(used, "embeddings") || !strings.Contains(errs["embeddings"], "build-embeddings --embedding-model vault") {
		t.Fatalf("damaged model: signals %q, errors %q", used, errs)
	}
}
