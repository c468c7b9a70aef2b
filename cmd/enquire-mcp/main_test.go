package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

const fixtureVault = "../../testdata/vault"

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIExitCodesAndMessages(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string // substring
		stderr  string // substring
		oneLine bool   // stderr must be a single line
	}{
		{"version", []string{"--version"}, 0, "enquire-mcp " + version, "", false},
		{"help", []string{"--help"}, 0, "enquire-mcp serve", "", false},
		{"no args", nil, 2, "", "Usage:", false},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`, false},
		{"missing vault", []string{"search", "--vault", "/nonexistent/vault", "x"}, 1, "", "vault /nonexistent/vault: no such file or directory", true},
		{"vault is a file", []string{"search", "--vault", "main.go", "x"}, 1, "", "not a directory", true},
		{"no vault flag", []string{"search", "x"}, 2, "", "--vault is required", true},
		{"no query", []string{"search", "--vault", fixtureVault}, 2, "", "missing query", true},
		{"bad flag", []string{"search", "--nope"}, 2, "", "flag provided but not defined", false},
		{"bad limit", []string{"search", "--vault", fixtureVault, "x", "--limit", "1000"}, 2, "", "limit must be between 1 and 100", true},
		{"bad filter json", []string{"search", "--vault", fixtureVault, "x", "--filter-frontmatter", "{"}, 2, "", "--filter-frontmatter", true},
		{"serve is the default command", []string{"--vault", "/nonexistent/vault"}, 1, "", "enquire-mcp serve: vault /nonexistent/vault", true},
		{"subcommand help", []string{"search", "-h"}, 0, "", "Usage: enquire-mcp search", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("code %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", code, tt.code, stdout, tt.stdout, stderr, tt.stderr)
			}
			if tt.oneLine && strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Fatalf("stderr is not one line: %q", stderr)
			}
		})
	}
}

func TestSearchCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "search", "--vault", fixtureVault, "levain", "hydration", "--limit", "3")
	if code != 0 || !strings.Contains(stdout, " 1. Cooking/Sourdough Bread.md") || !strings.Contains(stdout, "**levain**") {
		t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "search", "--vault", fixtureVault, "--json", "--folder", "Cooking", "bread")
	var out tools.SearchOutput
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil || out.Method != "rrf" || len(out.Matches) == 0 {
		t.Fatalf("--json: code %d, output %q", code, stdout)
	}
	for _, m := range out.Matches {
		if !strings.HasPrefix(m.Path, "Cooking/") {
			t.Fatalf("--folder ignored: %s", m.Path)
		}
	}
	code, stdout, _ = runCLI(t, "search", "--vault", fixtureVault, "zzskipme")
	if code != 0 || !strings.Contains(stdout, "no matches") {
		t.Fatalf("no-match output: code %d %q", code, stdout)
	}
}
