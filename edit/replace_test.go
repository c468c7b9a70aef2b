package edit

import (
	"strings"
	"testing"
)

func TestReplaceText(t *testing.T) {
	src := "---\ntitle: Plan\n---\nThe plan: ship v1. Plan B later.\nplan c\n"
	tests := []struct {
		name    string
		r       TextReplace
		want    string
		count   int
		wantErr string
	}{
		{"literal, case-insensitive", TextReplace{Find: "plan", With: "Roadmap"}, "---\ntitle: Roadmap\n---\nThe Roadmap: ship v1. Roadmap B later.\nRoadmap c\n", 4, ""},
		{"literal, case-sensitive", TextReplace{Find: "Plan", With: "X", CaseSensitive: true}, "---\ntitle: X\n---\nThe plan: ship v1. X B later.\nplan c\n", 2, ""},
		{"literal $ is not expanded", TextReplace{Find: "v1", With: "$1", CaseSensitive: true}, "---\ntitle: Plan\n---\nThe plan: ship $1. Plan B later.\nplan c\n", 1, ""},
		{"regex with a group", TextReplace{Find: `ship v(\d)`, With: "release ${1}.0", Regex: true}, "---\ntitle: Plan\n---\nThe plan: release 1.0. Plan B later.\nplan c\n", 1, ""},
		{"regex anchors are per line", TextReplace{Find: `^plan`, With: "Plan", Regex: true, CaseSensitive: true}, "---\ntitle: Plan\n---\nThe plan: ship v1. Plan B later.\nPlan c\n", 1, ""},
		{"no match", TextReplace{Find: "zebra", With: "x"}, src, 0, ""},
		{"invalid regex", TextReplace{Find: `(a`, Regex: true}, "", 0, "invalid regex"},
		{"look-around is not RE2", TextReplace{Find: `(?=a)`, Regex: true}, "", 0, "invalid regex"},
		{"empty match", TextReplace{Find: `x*`, Regex: true}, "", 0, "matches the empty string"},
		{"too long", TextReplace{Find: strings.Repeat("a", MaxPatternBytes+1)}, "", 0, "longer than"},
		{"empty find", TextReplace{}, "", 0, "find is empty"},
		{"would break the YAML", TextReplace{Find: "title: Plan", With: "title: [Plan", CaseSensitive: true}, "", 0, "would break the note's frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, n, err := ReplaceText([]byte(src), tt.r)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(out) != tt.want || n != tt.count {
				t.Fatalf("got %q, %d, %v; want %q, %d", out, n, err, tt.want, tt.count)
			}
		})
	}
}

// TestReplaceTextLinear runs a pattern that backtracks exponentially in
// a backtracking engine over a long line: RE2 answers at once.
func TestReplaceTextLinear(t *testing.T) {
	src := []byte(strings.Repeat("a", 50000) + "!\n")
	if _, n, err := ReplaceText(src, TextReplace{Find: `(a+)+b`, Regex: true}); err != nil || n != 0 {
		t.Fatalf("%d %v", n, err)
	}
}
