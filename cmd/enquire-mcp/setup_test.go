package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSetupIsIdempotent: the first run indexes and embeds, the second
// finds nothing to do; both end with the client config to paste.
func TestSetupIsIdempotent(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, stdout, stderr := runCLI(t, "setup", "--vault", fixtureVault, "--client", "cursor")
	if code != 0 || !strings.Contains(stdout, "43 added") || !strings.Contains(stdout, "2. embeddings") {
		t.Fatalf("first setup: %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "setup", "--vault", fixtureVault, "--client", "cursor")
	if code != 0 || !strings.Contains(stdout, "0 added, 0 updated, 0 renamed, 0 deleted, 43 unchanged") {
		t.Fatalf("second setup: %d\n%s\n%s", code, stdout, stderr)
	}
	_, snippet, ok := strings.Cut(stdout, "--write):\n")
	var doc map[string]any
	if !ok || json.Unmarshal([]byte(snippet), &doc) != nil || doc["mcpServers"] == nil {
		t.Fatalf("no client config at the end:\n%s", stdout)
	}
}
