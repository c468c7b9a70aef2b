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

// TestEvalJudgesPDFs: eval takes index's content flags, so a question
// whose answer is in a PDF is found with --include-pdfs, and the
// privacy flags of index hide it again.
func TestEvalJudgesPDFs(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join(fixtureVault, "Attachments", "paper.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"vault/paper.pdf": pdf,
		"vault/Other.md":  []byte("# Other\n\nNotes on folding cranes.\n"),
		"queries.jsonl":   []byte(`{"_id": "q1", "text": "placeholder paper page one"}` + "\n"),
		"qrels/test.tsv":  []byte("query-id\tcorpus-id\tscore\nq1\tpaper.pdf\t1\n"),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		hit  bool
	}{
		{"pdfs included", []string{"--include-pdfs"}, true},
		{"pdfs left out", nil, false},
		{"pdf excluded by a privacy rule", []string{"--include-pdfs", "--exclude-glob", "*.pdf"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"eval", dir, "--json", "--no-embeddings"}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("code %d, stderr %s", code, stderr)
			}
			var rep eval.Report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v in %s", err, stdout)
			}
			if (rep.NDCG10 > 0) != tt.hit {
				t.Fatalf("nDCG@10 %v, want a hit: %v", rep.NDCG10, tt.hit)
			}
		})
	}
}
