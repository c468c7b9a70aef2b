package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/eval"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fixtureIndex is what the fixture vault's index at the default location
// holds.
func fixtureIndex(t *testing.T) index.Info {
	t.Helper()
	root, err := vault.RealRoot(fixtureVault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := index.DefaultPath(root)
	if err != nil {
		t.Fatal(err)
	}
	info, err := index.Inspect(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// fixtureSearch runs search --json over the fixture vault.
func fixtureSearch(t *testing.T, query string, args ...string) (tools.SearchOutput, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"search", "--vault", fixtureVault, "--json", query}, args...)...)
	if code != 0 {
		t.Fatalf("search %q %v: code %d, stderr %q", query, args, code, stderr)
	}
	var out tools.SearchOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out, stderr
}

func matchPaths(out tools.SearchOutput) []string {
	var paths []string
	for _, m := range out.Matches {
		paths = append(paths, m.Path)
	}
	return paths
}

// shellWords splits a command line as doctor prints it (shellQuote).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\'':
			in, quoted = !in, true
		case c == ' ' && !in:
			if cur.Len() > 0 || quoted {
				words = append(words, cur.String())
			}
			cur.Reset()
			quoted = false
		default:
			cur.WriteByte(c)
		}
	}
	if in {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if cur.Len() > 0 || quoted {
		words = append(words, cur.String())
	}
	return words
}

// TestSetupPDFsThenPlainSearch: after setup --include-pdfs, a search
// without the flag follows the kept settings: BM25 on, PDFs found.
func TestSetupPDFsThenPlainSearch(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code, stdout, stderr := runCLI(t, "setup", "--vault", fixtureVault, "--include-pdfs", "--no-embeddings"); code != 0 {
		t.Fatalf("setup: %d\n%s\n%s", code, stdout, stderr)
	}
	out, stderr := fixtureSearch(t, "placeholder paper page one")
	if !slices.Contains(out.SignalsUsed, "bm25") {
		t.Fatalf("signals %v, stderr %q: the index made by setup is not used", out.SignalsUsed, stderr)
	}
	if !slices.Contains(matchPaths(out), "Attachments/paper.pdf") {
		t.Fatalf("the PDF is not found: %v", matchPaths(out))
	}
	if strings.Contains(stderr, "settings:") {
		t.Fatalf("a plain search reports a settings change: %q", stderr)
	}
}

// TestIndexSaysWhatSettingChanges: a content flag that differs from the
// kept settings changes them, in one line; the next run without the flag
// keeps them.
func TestIndexSaysWhatSettingChanges(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	tests := []struct {
		args []string
		line string // "" for none
		pdfs bool
	}{
		{[]string{}, "", false},
		{[]string{"--include-pdfs"}, "settings: PDFs now included (was: excluded); rebuilding the index", true},
		{[]string{}, "", true},
		{[]string{"--max-file-size", "100000"}, "settings: max file size now 100000 bytes (was: 5242880 bytes)", true},
		{[]string{"--include-pdfs=false"}, "settings: PDFs now excluded (was: included); rebuilding the index", false},
	}
	for i, tc := range tests {
		code, _, stderr := runCLI(t, append([]string{"index", "--vault", fixtureVault}, tc.args...)...)
		if code != 0 {
			t.Fatalf("run %d %v: %d %s", i, tc.args, code, stderr)
		}
		var got []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "settings:") {
				got = append(got, l)
			}
		}
		if want := []string{tc.line}; (tc.line == "" && len(got) > 0) || (tc.line != "" && !slices.Equal(got, want)) {
			t.Fatalf("run %d %v: settings lines %q, want %q", i, tc.args, got, tc.line)
		}
		if info := fixtureIndex(t); info.Settings.PDFs != tc.pdfs {
			t.Fatalf("run %d %v: index PDFs %v, want %v", i, tc.args, info.Settings.PDFs, tc.pdfs)
		}
	}
}

// TestDoctorFixLinesRunAsPrinted: the fix doctor prints for the missing
// vectors runs as printed and keeps every indexed chunk, PDFs included.
func TestDoctorFixLinesRunAsPrinted(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault, "--include-pdfs"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	before := fixtureIndex(t)
	_, stdout, _ := runCLI(t, "doctor", "--vault", fixtureVault, "--include-pdfs", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, stdout)
	}
	var fix string
	for _, c := range rep.Checks {
		if c.Name == "embeddings" {
			fix = c.Fix
		}
	}
	words := shellWords(t, fix)
	if len(words) < 2 || words[0] != "enquire-mcp" || words[1] != "build-embeddings" {
		t.Fatalf("embeddings fix %q is not a build-embeddings command", fix)
	}
	code, _, stderr := runCLI(t, words[1:]...)
	if code != 0 {
		t.Fatalf("%s: %d %s", fix, code, stderr)
	}
	if strings.Contains(stderr, "rebuilding") {
		t.Fatalf("%s rebuilt the index: %s", fix, stderr)
	}
	after := fixtureIndex(t)
	if after.Chunks != before.Chunks || after.PDFs != before.PDFs || after.Vectors != after.Chunks {
		t.Fatalf("%s: chunks %d → %d, PDFs %d → %d, vectors %d", fix, before.Chunks, after.Chunks, before.PDFs, after.PDFs, after.Vectors)
	}
}

// TestOneOffSearchLeavesIndex: search --exclude-glob narrows that search
// only; the shared index keeps every file.
func TestOneOffSearchLeavesIndex(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	before := fixtureIndex(t)
	out, stderr := fixtureSearch(t, "concurrency goroutines", "--exclude-glob", "Software/**")
	for _, p := range matchPaths(out) {
		if strings.HasPrefix(p, "Software/") {
			t.Fatalf("excluded %s in the answer: %v", p, matchPaths(out))
		}
	}
	if len(out.Matches) == 0 || !slices.Contains(out.SignalsUsed, "bm25") {
		t.Fatalf("narrowed search: matches %v, signals %v", matchPaths(out), out.SignalsUsed)
	}
	if after := fixtureIndex(t); after.Files != before.Files || after.Chunks != before.Chunks {
		t.Fatalf("the one-off search changed the index: files %d → %d, chunks %d → %d", before.Files, after.Files, before.Chunks, after.Chunks)
	}
	if !strings.Contains(stderr, "for this search only") {
		t.Fatalf("no line says the flag is for this search only: %q", stderr)
	}
	plain, _ := fixtureSearch(t, "concurrency goroutines")
	if !slices.ContainsFunc(matchPaths(plain), func(p string) bool { return strings.HasPrefix(p, "Software/") }) {
		t.Fatalf("plain search after it: %v", matchPaths(plain))
	}
}

// TestDoctorHonoursRules: doctor --exclude-glob judges the vault without
// the notes the rule hides (no count, no parse warning of them).
func TestDoctorHonoursRules(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	report := func(args ...string) map[string]check {
		t.Helper()
		_, stdout, _ := runCLI(t, append([]string{"doctor", "--vault", fixtureVault, "--json"}, args...)...)
		var rep doctorReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("doctor --json %v: %v\n%s", args, err, stdout)
		}
		m := map[string]check{}
		for _, c := range rep.Checks {
			m[c.Name] = c
		}
		return m
	}
	all, hidden := report(), report("--exclude-glob", "Syntax/**")
	if all["parsing"].Status != statusWarn {
		t.Fatalf("fixture without a parse warning: %+v", all["parsing"])
	}
	if hidden["parsing"].Status != statusOK || strings.Contains(strings.Join(hidden["parsing"].Items, "\n"), "Syntax/") {
		t.Fatalf("doctor --exclude-glob warns about a hidden note: %+v", hidden["parsing"])
	}
	if all["notes"].Detail == hidden["notes"].Detail {
		t.Fatalf("doctor --exclude-glob counts the hidden notes: %q", hidden["notes"].Detail)
	}
}

// TestCommandsFollowKeptSettings: serve and search given no content
// flag load the vault as index kept it (PDFs in, the excluded folder out)
// and use its index.
func TestCommandsFollowKeptSettings(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault, "--include-pdfs", "--exclude-glob", "Software/**"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	before := fixtureIndex(t)
	for _, tc := range []struct {
		name string
		mode contentMode
	}{{"serve", contentKeep}, {"search", contentOneCall}} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet(tc.name, flag.ContinueOnError)
			var vf vaultFlags
			vf.register(fs)
			if err := fs.Parse([]string{"--vault", fixtureVault}); err != nil {
				t.Fatal(err)
			}
			vf.noteGiven(fs, tc.mode)
			l, err := vf.load(context.Background(), errorLogger(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if l.Index() == nil {
				t.Fatalf("index not used: %s", vf.indexWhy)
			}
			var pdf, software bool
			for _, n := range l.Engine().Snapshot().Notes {
				pdf = pdf || n.Path == "Attachments/paper.pdf"
				software = software || strings.HasPrefix(n.Path, "Software/")
			}
			if !pdf || software {
				t.Fatalf("loaded with the PDF %v, with the excluded folder %v", pdf, software)
			}
		})
	}
	if after := fixtureIndex(t); after.Files != before.Files || after.Chunks != before.Chunks || !after.Settings.PDFs {
		t.Fatalf("index changed: files %d → %d, chunks %d → %d, PDFs %v", before.Files, after.Files, before.Chunks, after.Chunks, after.Settings.PDFs)
	}
}

// TestDoctorFollowsKeptSettings: doctor given no flag judges the vault as
// the index keeps it (PDFs in), and finds nothing to fix about them.
func TestDoctorFollowsKeptSettings(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code, _, stderr := runCLI(t, "index", "--vault", fixtureVault, "--include-pdfs"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	_, stdout, _ := runCLI(t, "doctor", "--vault", fixtureVault, "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, stdout)
	}
	for _, c := range rep.Checks {
		if (c.Name == "index" || c.Name == "pdfs") && c.Status != statusOK {
			t.Errorf("%s: %s %q, fix %q", c.Name, c.Status, c.Detail, c.Fix)
		}
	}
}

// TestEvalFollowsKeptSettings: eval over an index kept with PDFs judges
// the answers in PDFs without being told --include-pdfs again.
func TestEvalFollowsKeptSettings(t *testing.T) {
	dir := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join(fixtureVault, "Attachments", "paper.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"vault/paper.pdf": pdf,
		"vault/Other.md":  []byte("# Other\n\nNotes on folding cranes.\n"),
		"queries.jsonl":   []byte(`{"_id": "q1", "text": "placeholder paper page one"}` + "\n"),
		"qrels/test.tsv":  []byte("query-id\tcorpus-id\tscore\nq1\tpaper.pdf\t1\n"),
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ixFile := filepath.Join(t.TempDir(), "eval.db")
	if code, _, stderr := runCLI(t, "index", "--vault", filepath.Join(dir, "vault"), "--index-file", ixFile, "--include-pdfs"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	code, stdout, stderr := runCLI(t, "eval", dir, "--json", "--no-embeddings", "--index-file", ixFile)
	if code != 0 {
		t.Fatalf("eval: %d %s", code, stderr)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if rep.NDCG10 == 0 {
		t.Fatalf("nDCG@10 0: the PDF kept in the index was not judged (stderr %q)", stderr)
	}
}
