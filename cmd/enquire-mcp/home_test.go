package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandHome(t *testing.T) {
	home := func() (string, error) { return "/home/ada", nil }
	for _, tt := range []struct{ in, want string }{
		{"~", "/home/ada"},
		{"~/Notes", "/home/ada/Notes"},
		{"~/Notes/Work/", "/home/ada/Notes/Work"},
		{`~\Documents\Vault`, "/home/ada/Documents/Vault"}, // typed by a Windows user
		{"~ada/Notes", "~ada/Notes"},                       // another user's home: left alone
		{"/srv/vault", "/srv/vault"},
		{"Notes/~/x", "Notes/~/x"},
		{"", ""},
	} {
		got, err := expandHome(tt.in, home)
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("expandHome(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := expandHome("~/x", func() (string, error) { return "", errors.New("$HOME is not defined") }); err == nil || !strings.Contains(err.Error(), "$HOME is not defined") {
		t.Errorf("no home: err = %v", err)
	}
}

// TestTildeVaultFromClientConfig is what an MCP client does: it starts the
// binary with "--vault ~/…" and no shell to expand it.
func TestTildeVaultFromClientConfig(t *testing.T) {
	home := t.TempDir()
	abs, err := filepath.Abs(fixtureVault)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(home, "Vault")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, stdout, stderr := runCLI(t, "search", "--vault", "~/Vault", "levain", "--limit", "1")
	if code != 0 || !strings.Contains(stdout, "Cooking/Sourdough Bread.md") {
		t.Fatalf("--vault ~/Vault: code %d stdout %q stderr %q", code, stdout, stderr)
	}
	t.Setenv("ENQUIRE_VAULT", "~/Vault")
	code, stdout, stderr = runCLI(t, "search", "levain", "--limit", "1")
	if code != 0 || !strings.Contains(stdout, "Cooking/Sourdough Bread.md") {
		t.Fatalf("ENQUIRE_VAULT=~/Vault: code %d stdout %q stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "search", "--vault", "~/Missing", "x")
	if code != 1 || !strings.Contains(stderr, filepath.Join(home, "Missing")) && !strings.Contains(stderr, "~/Missing") {
		t.Fatalf("missing ~ vault: code %d stderr %q", code, stderr)
	}
}
