package eval

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDocIDEscaping(t *testing.T) {
	tests := []struct{ id, escaped string }{
		{"d1", "d1"},
		{"Programming/Bucket Testing.md", "Programming/Bucket%20Testing.md"},
		{"100% done.md", "100%25%20done.md"},
		{"tab\there\nnl", "tab%09here%0Anl"},
		{"中文 笔记.md", "中文%20笔记.md"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := EscapeDocID(tt.id); got != tt.escaped {
			t.Errorf("EscapeDocID(%q) = %q, want %q", tt.id, got, tt.escaped)
		}
		if got := UnescapeDocID(tt.escaped); got != tt.id {
			t.Errorf("UnescapeDocID(%q) = %q, want %q", tt.escaped, got, tt.id)
		}
	}
	// A lone '%' that is not an escape reads back as itself.
	for _, id := range []string{"50%", "a%zzb", "%4"} {
		if got := UnescapeDocID(id); got != id {
			t.Errorf("UnescapeDocID(%q) = %q", id, got)
		}
	}
}

// TestRunRoundTripsThroughTRECQrels writes a run whose ids hold spaces,
// checks every line has the six TREC fields, and reads qrels written in
// the same escaped form back to the original paths.
func TestRunRoundTripsThroughTRECQrels(t *testing.T) {
	var b bytes.Buffer
	ids := []string{"Notes/My Note.md", "a.md"}
	if err := WriteRun(&b, []Ranking{{QueryID: "q 1", Docs: ids, Scores: []float64{2, 1}}}, "tag"); err != nil {
		t.Fatal(err)
	}
	var qrels strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("run line %q has %d fields, want 6", line, len(f))
		}
		qrels.WriteString(f[0] + " 0 " + f[2] + " 1\n")
	}
	dir := writeFiles(t, map[string]string{"qrels/test.tsv": qrels.String()})
	q, err := readQrels(dir + "/qrels/test.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if q["q 1"][id] != 1 {
			t.Fatalf("qrels %v lack %q", q, id)
		}
	}
	// BEIR tab-separated qrels keep ids as they are.
	dir = writeFiles(t, map[string]string{
		"qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\tMy%20Note.md\t1\n",
		"queries.jsonl":  `{"_id": "q1", "text": "x"}` + "\n",
		"corpus.jsonl":   `{"_id": "My%20Note.md", "text": "x"}` + "\n",
	})
	ds, err := Load(context.Background(), dir, "test", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if ds.Qrels["q1"]["My%20Note.md"] != 1 {
		t.Fatalf("BEIR qrels %v", ds.Qrels)
	}
}

// TestVaultAsLinkFile loads a dataset whose vault is a symlink flattened
// into a plain file naming the folder.
func TestVaultAsLinkFile(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"vaults/v/Note One.md": "apple pie",
		"set/queries.jsonl":    `{"_id": "q1", "text": "apple"}` + "\n",
		"set/qrels/test.tsv":   "q1\tNote One.md\t1\n",
		"set/vault":            "../vaults/v\n",
		"bad/queries.jsonl":    `{"_id": "q1", "text": "apple"}` + "\n",
		"bad/qrels/test.tsv":   "q1\tNote One.md\t1\n",
		"bad/vault":            "../vaults/missing\n",
	})
	ds, err := Load(context.Background(), root+"/set", "test", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if ds.Vault != root+"/vaults/v" {
		t.Fatalf("vault %q", ds.Vault)
	}
	if _, err := Load(context.Background(), root+"/bad", "test", t.TempDir()); err == nil || !strings.Contains(err.Error(), "corpus.jsonl or a vault/ folder") {
		t.Fatalf("a link file to a missing folder: err %v", err)
	}
}
