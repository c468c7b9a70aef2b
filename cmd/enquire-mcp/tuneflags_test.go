package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestEvalRuleAndB: with --self-tune, under --self-tune-rule 2 a kept rule-2 choice brings
// its b to the searches and --bm25-b overrides it; rule 1 (the default)
// does not read a rule-2 choice (it chooses again, at the default b);
// bad values are usage errors.
func TestEvalRuleAndB(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	dataset := "../../testdata/quality-workshop"
	lines := func(args ...string) (tuned, bm25 string) {
		t.Helper()
		code, _, stderr := runCLI(t, append([]string{"eval", dataset, "--index-file", ix, "--no-embeddings", "--self-tune"}, args...)...)
		if code != 0 {
			t.Fatalf("code %d, stderr %s", code, stderr)
		}
		for _, l := range strings.Split(stderr, "\n") {
			if w, ok := strings.CutPrefix(l, "self-tuned weights: "); ok {
				tuned = w
			}
			if p, ok := strings.CutPrefix(l, "bm25: "); ok {
				bm25 = p
			}
		}
		return tuned, bm25
	}
	first, _ := lines("--self-tune-rule", "2") // makes the index and a rule-2 choice
	root, err := vault.RealRoot(dataset + "/vault")
	if err != nil {
		t.Fatal(err)
	}
	x, err := index.Open(context.Background(), ix, index.NewSettings(root, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	planted, _ := encodeTuning(root, search.RuleWeightsAndB, search.Tuning{Weights: map[string]float64{"bm25": 2, "tfidf": 1, "feedback": 0.5}, BM25B: 0.3, Why: "planted b"})
	if err := x.KeepSelfTune(planted); err != nil {
		t.Fatal(err)
	}
	x.Close()
	for _, tc := range []struct {
		name       string
		args       []string
		tuned, b25 string
	}{
		{"kept rule-2 choice", []string{"--self-tune-rule", "2"}, "planted b", "k1=1.2 b=0.3"},
		{"--bm25-b overrides it", []string{"--self-tune-rule", "2", "--bm25-b", "0.5"}, "planted b", "k1=1.2 b=0.5"},
		{"the default rule (1) chooses again", nil, "", "k1=1.2 b=0.75"}, // and keeps a rule-1 choice
		{"rule 1 reads its own choice", []string{"--self-tune-rule", "1", "--bm25-b", "0"}, "", "k1=1.2 b=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tuned, b25 := lines(tc.args...)
			if (tc.tuned != "" && tuned != tc.tuned) || (tc.tuned == "" && (tuned == "planted b" || tuned == "")) || b25 != tc.b25 {
				t.Errorf("self-tuned %q, bm25 %q; want %q, %q", tuned, b25, tc.tuned, tc.b25)
			}
		})
	}
	if first == "" || strings.HasPrefix(first, "off") {
		t.Errorf("first run: %q", first)
	}
	for _, bad := range [][]string{{"--self-tune-rule", "3"}, {"--bm25-b", "1.5"}, {"--bm25-b", "x"}} {
		code, _, stderr := runCLI(t, append([]string{"eval", dataset, "--index-file", ix, "--no-embeddings"}, bad...)...)
		if code != 2 || !strings.Contains(stderr, strings.TrimLeft(bad[0], "-")) {
			t.Errorf("%q: code %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
		}
	}
}

// TestEvalBM25Proximity: --bm25-proximity reaches the engine eval runs
// either way, and without it the engine has the default.
func TestEvalBM25Proximity(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, fmt.Sprintf("bm25 proximity bonus: %v", rankers.DefaultBM25Proximity)},
		{[]string{"--bm25-proximity"}, "bm25 proximity bonus: true"},
		{[]string{"--bm25-proximity=false"}, "bm25 proximity bonus: false"},
	} {
		code, _, stderr := runCLI(t, append([]string{"eval", "../../testdata/quality-workshop", "--index-file", ix, "--no-embeddings"}, tc.args...)...)
		if code != 0 || !strings.Contains(stderr, tc.want+"\n") {
			t.Fatalf("%q: code %d, want %q in stderr:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
