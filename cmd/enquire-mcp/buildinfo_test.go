package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersionLineShowsStamp checks what scripts/release.sh sets with
// -ldflags -X (the same package variables) reaches --version.
func TestVersionLineShowsStamp(t *testing.T) {
	oldV, oldC, oldD := version, commit, date
	t.Cleanup(func() { version, commit, date = oldV, oldC, oldD })
	version, commit, date = "1.2.3", "0123456789ab", "2026-11-24T05:00:00Z"
	code, stdout, _ := runCLI(t, "--version")
	want := "enquire-mcp 1.2.3 (commit 0123456789ab, built 2026-11-24T05:00:00Z, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if code != 0 || stdout != want {
		t.Fatalf("--version = %d %q, want %q", code, stdout, want)
	}
	// Unstamped (go run, go test): never an empty field.
	commit, date = "", ""
	if line := versionLine(); strings.Contains(line, "commit ,") || strings.Contains(line, "built ,") {
		t.Fatalf("unstamped: %q", line)
	}
}
