package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/tools"
)

func TestSearchTypesAndBlendFlags(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string                                     // substring, for failures
		check  func(t *testing.T, out tools.SearchOutput) // for successes
	}{
		{name: "memories only", args: []string{"--types", "memory", "helix editor coffee sourdough"},
			check: func(t *testing.T, out tools.SearchOutput) {
				if len(out.Matches) != 2 {
					t.Fatalf("want both fixture memories: %+v", out.Matches)
				}
				for _, m := range out.Matches {
					if m.ResultType != "memory" || m.MemoryKey == "" {
						t.Fatalf("match %+v", m)
					}
				}
			}},
		{name: "no memory", args: []string{"--no-memory", "helix editor coffee sourdough"},
			check: func(t *testing.T, out tools.SearchOutput) {
				if len(out.Matches) == 0 {
					t.Fatal("no matches")
				}
				for _, m := range out.Matches {
					if m.ResultType != "note" {
						t.Fatalf("memory despite --no-memory: %+v", m)
					}
				}
			}},
		{name: "importance weight reports the parts", args: []string{"--importance-weight", "0.5", "coffee"},
			check: func(t *testing.T, out tools.SearchOutput) {
				if len(out.Matches) == 0 || out.Matches[0].Importance == nil || *out.Matches[0].Importance != 0.3 {
					t.Fatalf("matches %+v", out.Matches)
				}
			}},
		{name: "unknown type", args: []string{"--types", "fact", "x"}, code: 2, stderr: `unknown type "fact"`},
		{name: "types and no-memory", args: []string{"--types", "memory", "--no-memory", "x"}, code: 2, stderr: "not both"},
		{name: "recency weight above 1", args: []string{"--recency-weight", "2", "x"}, code: 2, stderr: "from 0 to 1"},
		{name: "negative importance weight", args: []string{"--importance-weight", "-0.1", "x"}, code: 2, stderr: "from 0 to 1"},
		{name: "weights summing above 1", args: []string{"--recency-weight", "0.7", "--importance-weight", "0.5", "x"}, code: 2, stderr: "must not exceed 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"search", "--vault", fixtureVault, "--no-index", "--json"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("code %d (want %d), stderr %q (want %q)", code, tt.code, stderr, tt.stderr)
			}
			if tt.check != nil {
				var out tools.SearchOutput
				if err := json.Unmarshal([]byte(stdout), &out); err != nil {
					t.Fatalf("%v: %q", err, stdout)
				}
				tt.check(t, out)
			}
		})
	}
}

func TestServeRefusesMemoryFolderOutsideVault(t *testing.T) {
	for _, folder := range []string{"../x", "/etc", ".obsidian"} {
		code, _, stderr := runCLI(t, "serve", "--vault", fixtureVault, "--enable-memory", "--memory-folder", folder)
		if code != 2 || !strings.Contains(stderr, "--memory-folder") {
			t.Errorf("--memory-folder %s: code %d, stderr %q", folder, code, stderr)
		}
	}
}
