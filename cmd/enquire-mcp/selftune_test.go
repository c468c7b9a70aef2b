package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/search"
)

func TestTuningFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db.selftune.json")
	if _, ok := readTuning(path, "/v"); ok {
		t.Fatal("a missing file read as a choice")
	}
	want := search.Tuning{Weights: map[string]float64{"bm25": 1, "tfidf": 2, "feedback": 0.5}, Kind: "link", Queries: 40, Gain: 0.02, T: 2.5, Why: "chosen"}
	if err := writeTuning(path, "/v", want); err != nil {
		t.Fatal(err)
	}
	if _, ok := readTuning(path, "/other"); ok {
		t.Error("a choice made for another vault was read")
	}
	got, ok := readTuning(path, "/v")
	if !ok || got.Why != want.Why || got.Weights["tfidf"] != 2 || got.Queries != 40 {
		t.Fatalf("read %+v, %v; want %+v", got, ok, want)
	}
	for name, text := range map[string]string{
		"another version": `{"version": 0, "root": "/v", "tuning": {"why": "old"}}`,
		"damaged":         `{"version": 1, "root": "/v", "tun`,
		"no reason":       `{"version": 1, "root": "/v", "tuning": {}}`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := readTuning(path, "/v"); ok {
			t.Errorf("%s: read as a valid choice", name)
		}
	}
}

// TestEvalSelfTune: eval reports the self-tuned weights, keeps the choice
// beside the index, reads it back on the next run instead of computing it
// again, and --no-self-tune turns it off.
func TestEvalSelfTune(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	line := func(args ...string) string {
		t.Helper()
		code, _, stderr := runCLI(t, append([]string{"eval", "../../testdata/quality-workshop", "--index-file", ix, "--no-embeddings"}, args...)...)
		if code != 0 {
			t.Fatalf("code %d, stderr %s", code, stderr)
		}
		for _, l := range strings.Split(stderr, "\n") {
			if w, ok := strings.CutPrefix(l, "self-tuned weights: "); ok {
				return w
			}
		}
		t.Fatalf("no self-tuned line in %s", stderr)
		return ""
	}
	first := line()
	if first == "" || strings.HasPrefix(first, "off") {
		t.Fatalf("first run: %q", first)
	}
	root := keptRoot(t, selfTunePath(ix))
	kept, ok := readTuning(selfTunePath(ix), root)
	if !ok || kept.Why != first {
		t.Fatalf("kept %+v (%v), reported %q", kept, ok, first)
	}
	planted := search.Tuning{Weights: map[string]float64{"bm25": 0, "tfidf": 3, "feedback": 0.5}, Why: "planted choice"}
	if err := writeTuning(selfTunePath(ix), root, planted); err != nil {
		t.Fatal(err)
	}
	if got := line(); got != "planted choice" {
		t.Errorf("second run computed again (%q) instead of reading the kept choice", got)
	}
	if got := line("--no-self-tune"); got != "off: --no-self-tune" {
		t.Errorf("--no-self-tune: %q", got)
	}
}

// TestIndexRetunes: the index command makes the choice again, whatever
// was kept.
func TestIndexRetunes(t *testing.T) {
	ix := filepath.Join(t.TempDir(), "index.db")
	root, err := filepath.EvalSymlinks(filepath.Join("..", "..", "testdata", "vault"))
	if err != nil {
		t.Fatal(err)
	}
	if root, err = filepath.Abs(root); err != nil {
		t.Fatal(err)
	}
	if err := writeTuning(selfTunePath(ix), root, search.Tuning{Why: "planted choice"}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "index", "--vault", "../../testdata/vault", "--index-file", ix); code != 0 {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	if keptRoot(t, selfTunePath(ix)) != root {
		t.Fatalf("kept for %q, want %q", keptRoot(t, selfTunePath(ix)), root)
	}
	got, ok := readTuning(selfTunePath(ix), root)
	if !ok || got.Why == "planted choice" || !strings.Contains(got.Why, "link queries") {
		t.Errorf("after index: %+v, %v", got, ok)
	}
}

// keptRoot is the vault a kept choice names.
func keptRoot(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s savedTuning
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Root
}
