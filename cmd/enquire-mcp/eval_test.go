package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/eval"
)

// TestEvalMatrixHasEverySignal runs `eval --matrix` on a fixture set with
// a fresh temporary index: the embeddings it builds must be served, so no
// configuration is reported unavailable and the default fuses all three
// signals. It also checks the --run file keeps paths with spaces in one
// TREC field.
func TestEvalMatrixHasEverySignal(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run.trec")
	code, stdout, stderr := runCLI(t, "eval", "../../testdata/quality-workshop", "--matrix", "--json", "--run", run)
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, stderr)
	}
	var reports []eval.Report
	if err := json.Unmarshal([]byte(stdout), &reports); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if len(reports) != len(eval.Matrix())+1 {
		t.Fatalf("%d reports, want %d", len(reports), len(eval.Matrix())+1)
	}
	for _, r := range reports {
		if len(r.Unavailable) > 0 || r.Queries == 0 {
			t.Errorf("%s: unavailable %q, %d queries", r.Config.Name(), r.Unavailable, r.Queries)
		}
	}
	def := reports[len(reports)-1]
	if want := []string{"bm25", "tfidf", "embeddings", "feedback"}; !slices.Equal(def.SignalsUsed, want) {
		t.Errorf("default configuration used %q, want %q", def.SignalsUsed, want)
	}
	raw, err := os.ReadFile(run)
	if err != nil {
		t.Fatal(err)
	}
	spaced := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("run line %q has %d fields, want 6", line, len(f))
		}
		if strings.Contains(f[2], "%20") {
			spaced++
		}
	}
	if spaced == 0 {
		t.Error("no escaped path in the run, though most fixture paths hold a space")
	}
}
