package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalBM25B: --bm25-b reaches the engine eval runs, without it the
// default b is used, and a bad value is a usage error naming the flag.
func TestEvalBM25B(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	dataset := "../../testdata/quality-workshop"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "bm25: k1=1.2 b=0.75"},
		{[]string{"--bm25-b", "0.5"}, "bm25: k1=1.2 b=0.5"},
		{[]string{"--bm25-b", "0"}, "bm25: k1=1.2 b=0"},
	} {
		code, _, stderr := runCLI(t, append([]string{"eval", dataset, "--index-file", ix, "--no-embeddings"}, tc.args...)...)
		if code != 0 || !strings.Contains(stderr, tc.want+"\n") {
			t.Fatalf("%q: code %d, want %q in stderr:\n%s", tc.args, code, tc.want, stderr)
		}
	}
	for _, bad := range [][]string{{"--bm25-b", "1.5"}, {"--bm25-b", "x"}} {
		code, _, stderr := runCLI(t, append([]string{"eval", dataset, "--index-file", ix, "--no-embeddings"}, bad...)...)
		if code != 2 || !strings.Contains(stderr, strings.TrimLeft(bad[0], "-")) {
			t.Errorf("%q: code %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
		}
	}
}

// TestRemovedTuningFlags: the flags of the removed self-tuning and BM25
// proximity bonus, which client configs may still pass, are accepted in
// every form they had, each said once to be ignored, the ranking is the
// default one, and --help no longer lists them.
func TestRemovedTuningFlags(t *testing.T) {
	dir := t.TempDir()
	ix, run := filepath.Join(dir, "index.db"), filepath.Join(dir, "run.trec")
	dataset := "../../testdata/quality-workshop"
	// eval returns the TREC run of the default configuration (every
	// query's ranking with its scores) and stderr.
	eval := func(args ...string) (string, string) {
		t.Helper()
		code, _, stderr := runCLI(t, append([]string{"eval", dataset, "--index-file", ix, "--no-embeddings", "--run", run}, args...)...)
		if code != 0 {
			t.Fatalf("%q: code %d, stderr:\n%s", args, code, stderr)
		}
		raw, err := os.ReadFile(run)
		if err != nil || len(raw) == 0 {
			t.Fatalf("%q: run file: %v (%d bytes)", args, err, len(raw))
		}
		return string(raw), stderr
	}
	want, _ := eval()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--self-tune"}, "self-tune"},
		{[]string{"--self-tune=false"}, "self-tune"},
		{[]string{"--no-self-tune"}, "no-self-tune"},
		{[]string{"--self-tune-rule", "2"}, "self-tune-rule"},
		{[]string{"--self-tune-rule=1"}, "self-tune-rule"},
		{[]string{"--bm25-proximity"}, "bm25-proximity"},
		{[]string{"--bm25-proximity=false"}, "bm25-proximity"},
	} {
		got, stderr := eval(tc.args...)
		line := "--" + tc.flag + " was removed and is ignored"
		if n := strings.Count(stderr, line); n != 1 {
			t.Errorf("%q: %q said %d times, want once:\n%s", tc.args, line, n, stderr)
		}
		if got != want {
			t.Errorf("%q: the ranking differs from the default's:\n%s\nwant\n%s", tc.args, got, want)
		}
	}
	for _, cmd := range []string{"serve", "serve-http", "search", "index", "eval"} {
		_, _, stderr := runCLI(t, cmd, "--help")
		if !strings.Contains(stderr, "-bm25-b") && cmd != "index" || !strings.Contains(stderr, "-vault") && cmd != "eval" {
			t.Fatalf("%s --help lists too little:\n%s", cmd, stderr)
		}
		for _, gone := range []string{"self-tune", "bm25-proximity", "removed:"} {
			if strings.Contains(stderr, gone) {
				t.Errorf("%s --help still lists %q", cmd, gone)
			}
		}
	}
	for _, cmd := range [][]string{{"serve", "--vault", fixtureVault, "--self-tune-rule"}, {"index", "--vault", fixtureVault, "--self-tune-rule"}} {
		if code, _, stderr := runCLI(t, cmd...); code != 2 || !strings.Contains(stderr, "self-tune-rule") {
			t.Errorf("%q: code %d, stderr %q; want a usage error (the flag still takes a value)", cmd, code, stderr)
		}
	}
}
