package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/ocr"
	"github.com/enquire-mcp/enquire-mcp/ocr/ocrtest"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/watch"
)

// ocrVault is a temporary vault with a note and a PDF whose page 1 has a
// text layer and whose page 2 is a scan of words found nowhere else.
func ocrVault(t *testing.T, tl ocr.Tools) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Groceries.md"), []byte("# Groceries\n\nsourdough flour and rye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "scans"), 0o755); err != nil {
		t.Fatal(err)
	}
	ocrtest.WritePDF(t, tl, filepath.Join(dir, "scans", "Receipt.pdf"), []ocrtest.Page{
		{Text: "Bakery receipt summary page"},
		{Text: "QUARTZITE MERIDIAN 4217", Scanned: true},
	})
	return dir
}

// countingTools puts wrappers of the OCR programs first on PATH: each
// call appends a line to the returned log before running the real one.
func countingTools(t *testing.T, tl ocr.Tools) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	for name, real := range map[string]string{"pdftoppm": tl.Pdftoppm, "tesseract": tl.Tesseract} {
		script := "#!/bin/sh\necho " + name + " >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), log
}

func tesseractCalls(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "tesseract\n")
}

// runOCRBin runs the binary with PATH and a private cache dir.
func runOCRBin(t *testing.T, bin, path, cache string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PATH="+path, "XDG_CACHE_HOME="+cache)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func searchJSON(t *testing.T, bin, path, cache, vault, query string, extra ...string) tools.SearchOutput {
	t.Helper()
	out, _ := runOCRBin(t, bin, path, cache, append([]string{"search", "--vault", vault, "--include-pdfs", "--json", query}, extra...)...)
	var res tools.SearchOutput
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search %q: %v\n%s", query, err, out)
	}
	return res
}

// TestOCREndToEnd indexes a vault with a scanned page: the page's words
// become searchable with page and ocr:true, and the scan is read once —
// not again on a second run, after a touch (same content), nor when a
// search loads the vault again.
func TestOCREndToEnd(t *testing.T) {
	tl := ocrtest.NeedTools(t)
	bin := buildBinary(t)
	vault := ocrVault(t, tl)
	path, log := countingTools(t, tl)
	cache := t.TempDir()
	index := []string{"index", "--vault", vault, "--include-pdfs", "--ocr"}

	out, stderr := runOCRBin(t, bin, path, cache, index...)
	if n := tesseractCalls(t, log); n != 1 {
		t.Fatalf("first run: tesseract ran %d times, want 1 (the scanned page)\n%s%s", n, out, stderr)
	}
	if !strings.Contains(out, "OCR: 1 pages of 1 PDFs read") || !strings.Contains(out, "PDFs without text: 0") {
		t.Errorf("summary lacks the OCR line or counts the scan as textless:\n%s", out)
	}

	tests := []struct {
		query string
		page  int
		ocr   bool
	}{
		{"quartzite meridian", 2, true},
		{"bakery receipt", 1, false},
	}
	for _, tt := range tests {
		res := searchJSON(t, bin, path, cache, vault, tt.query)
		if len(res.Matches) == 0 || res.Matches[0].Path != "scans/Receipt.pdf" {
			t.Fatalf("%q: matches %+v", tt.query, res.Matches)
		}
		m := res.Matches[0]
		if m.Page != tt.page || m.OCR != tt.ocr || !strings.HasPrefix(m.Snippet, "[page: "+string(rune('0'+tt.page))+"]") {
			t.Errorf("%q: page %d ocr %v snippet %q; want page %d ocr %v", tt.query, m.Page, m.OCR, m.Snippet, tt.page, tt.ocr)
		}
		if !slices.Contains(res.SignalsUsed, "bm25") {
			t.Errorf("%q: signals %v, want the index's bm25", tt.query, res.SignalsUsed)
		}
	}
	table, _ := runOCRBin(t, bin, path, cache, "search", "--vault", vault, "--include-pdfs", "quartzite")
	if !strings.Contains(table, "page 2, OCR") {
		t.Errorf("table output does not say the hit is OCR text:\n%s", table)
	}
	if hit := fullTextOverMCP(t, bin, path, cache, vault, "quartzite"); hit.Page != 2 || !hit.OCR {
		t.Errorf("obsidian_full_text_search: %+v, want page 2 with ocr:true", hit)
	}

	runOCRBin(t, bin, path, cache, index...) // unchanged
	later := time.Now().Add(time.Hour)
	pdf := filepath.Join(vault, "scans", "Receipt.pdf")
	if err := os.Chtimes(pdf, later, later); err != nil {
		t.Fatal(err)
	}
	out, _ = runOCRBin(t, bin, path, cache, index...) // touched: same content hash
	searchJSON(t, bin, path, cache, vault, "quartzite", "--ocr")
	if n := tesseractCalls(t, log); n != 1 {
		t.Fatalf("OCR ran again: tesseract %d times in all, want 1\n%s", n, out)
	}
	if !strings.Contains(out, "1 PDFs from the OCR cache") {
		t.Errorf("touched PDF not served from the OCR cache:\n%s", out)
	}
}

// TestOCRToolsMissing: without the programs, --ocr warns once, naming the
// packages, and the index is what it is without --ocr.
func TestOCRToolsMissing(t *testing.T) {
	bin := buildBinary(t)
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Note.md"), []byte("# Note\n\nzephyr lantern\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.pdf", "b.pdf"} { // two image-only PDFs: still one warning
		ocrtest.BlankPDF(t, filepath.Join(vault, name))
	}
	empty, cache := t.TempDir(), t.TempDir()
	out, stderr := runOCRBin(t, bin, empty, cache, "index", "--vault", vault, "--include-pdfs", "--ocr")
	if n := strings.Count(stderr, "warning:"); n != 1 {
		t.Fatalf("%d warnings on stderr, want 1:\n%s", n, stderr)
	}
	for _, want := range []string{"poppler-utils", "tesseract-ocr tesseract-ocr-eng", "brew install"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("warning lacks %q: %s", want, stderr)
		}
	}
	if !strings.Contains(out, "3 added") || !strings.Contains(out, "PDFs without text: 2") || strings.Contains(out, "OCR:") {
		t.Errorf("index summary:\n%s", out)
	}
	res := searchJSON(t, bin, empty, cache, vault, "zephyr lantern")
	if len(res.Matches) == 0 || res.Matches[0].Path != "Note.md" {
		t.Errorf("the notes are not searchable: %+v", res.Matches)
	}
}

func TestOCRFlagChecks(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"needs pdfs", []string{"index", "--vault", fixtureVault, "--ocr"}, "add --include-pdfs"},
		{"bad langs", []string{"index", "--vault", fixtureVault, "--include-pdfs", "--ocr", "--ocr-langs", "-psm"}, "--ocr-langs"},
		{"bad cap", []string{"index", "--vault", fixtureVault, "--include-pdfs", "--ocr", "--ocr-max-pages", "0"}, "--ocr-max-pages"},
		{"bad timeout", []string{"index", "--vault", fixtureVault, "--include-pdfs", "--ocr", "--ocr-timeout", "0s"}, "--ocr-timeout"},
		{"setup too", []string{"setup", "--vault", fixtureVault, "--ocr"}, "add --include-pdfs"},
		{"search too", []string{"search", "--vault", fixtureVault, "--ocr", "x"}, "add --include-pdfs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestOCRLive: a scanned PDF added while serving with --ocr is read and
// searchable with ocr:true; editing another note afterwards reads no PDF
// again (the OCR counter stays put).
func TestOCRLive(t *testing.T) {
	tl := ocrtest.NeedTools(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Groceries.md"), []byte("# Groceries\n\nrye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vf := &vaultFlags{vault: root, indexFile: filepath.Join(t.TempDir(), "live.db"), maxFileSize: 1 << 20, pdfs: true,
		ocr: ocrFlags{on: true, langs: ocr.DefaultLangs, maxPages: ocr.DefaultMaxPages, timeout: ocr.DefaultTimeout}}
	lv := startLiveWith(t, vf, watch.Options{Quiet: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	staged := filepath.Join(t.TempDir(), "Scan.pdf") // written whole, then moved in
	ocrtest.WritePDF(t, tl, staged, []ocrtest.Page{{Text: "Cover page"}, {Text: "QUARTZITE MERIDIAN 4217", Scanned: true}})
	if err := os.Rename(staged, filepath.Join(root, "Scan.pdf")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var hit search.Hit
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		res, err := lv.Engine().Search(ctx, search.Request{Query: "quartzite meridian", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) > 0 {
			hit = res.Hits[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the scanned page never became searchable")
		}
	}
	if hit.Path != "Scan.pdf" || hit.Page != 2 || !hit.OCR || !strings.HasPrefix(hit.Snippet, "[page: 2]") {
		t.Fatalf("hit %+v", hit)
	}
	if n := vf.ocr.stats.files.Load(); n != 1 {
		t.Fatalf("OCR ran on %d PDFs, want 1", n)
	}
	if err := os.WriteFile(filepath.Join(root, "Groceries.md"), []byte("# Groceries\n\nrye and spelt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lv.Settle(t, root, 1)
	if n := vf.ocr.stats.files.Load(); n != 1 {
		t.Fatalf("editing a note re-ran OCR: %d runs, want 1", n)
	}
}

// mapCache is an in-memory ocrCache.
type mapCache map[string][]pdf.Page

func (m mapCache) CachedOCR(_ context.Context, hash, key string) ([]pdf.Page, bool) {
	p, ok := m[hash+"|"+key]
	return p, ok
}

func (m mapCache) StoreOCR(_ context.Context, hash, key string, pages []pdf.Page) error {
	m[hash+"|"+key] = pages
	return nil
}

// TestOCRReaderResumes: a run that fails on a page keeps the pages read
// before it, and the next run reads only the rest (fake tools count the
// pages they are asked for).
func TestOCRReaderResumes(t *testing.T) {
	dir := t.TempDir()
	log, fail := filepath.Join(dir, "pages.log"), filepath.Join(dir, "fail-page")
	// pdftoppm -f N -l N ... IN PREFIX: record N, make PREFIX.png holding N.
	pdftoppm := "#!/bin/sh\nn=$2\nfor a; do prefix=$a; done\necho $n >> '" + log + "'\necho $n > \"$prefix.png\"\n"
	// tesseract IMG stdout ...: fail on the page named in the fail file.
	tesseract := "#!/bin/sh\nn=$(cat \"$1\")\nif [ -f '" + fail + "' ] && [ \"$(cat '" + fail + "')\" = \"$n\" ]; then exit 1; fi\necho \"text of page $n\"\n"
	for name, script := range map[string]string{"pdftoppm": pdftoppm, "tesseract": tesseract} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "pdftoppm")) // any bytes stand in for the PDF
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cache := mapCache{}
	r := &ocrReader{tools: ocr.Tools{Pdftoppm: filepath.Join(dir, "pdftoppm"), Tesseract: filepath.Join(dir, "tesseract")},
		opts: ocr.Options{Langs: "eng", MaxPages: 10}, cache: cache, stats: &ocrStats{}}
	ctx := context.Background()
	tests := []struct {
		name      string
		failPage  string
		wantRead  string // pages rendered by this run, one per line
		wantPages int
		wantErr   bool
	}{
		{"fails on page 3", "3", "1\n2\n3\n", 2, true},
		{"resumes at page 3", "", "3\n4\n", 4, false},
		{"cached", "", "", 4, false},
	}
	for _, tt := range tests {
		os.Remove(log)
		os.Remove(fail)
		if tt.failPage != "" {
			if err := os.WriteFile(fail, []byte(tt.failPage), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := r.Pages(ctx, f, "h1", []int{1, 2, 3, 4})
		if (err != nil) != tt.wantErr || len(got) != tt.wantPages {
			t.Fatalf("%s: %d pages, err %v", tt.name, len(got), err)
		}
		read, _ := os.ReadFile(log)
		if string(read) != tt.wantRead {
			t.Errorf("%s: rendered pages %q, want %q", tt.name, read, tt.wantRead)
		}
		for i, p := range got {
			if p.Number != i+1 || p.Text != fmt.Sprintf("text of page %d", i+1) {
				t.Errorf("%s: page %d = %+v", tt.name, i, p)
			}
		}
	}
}

// TestOCRArgsRoundTrip: the flags setup passes on to index and to the
// client's serve command parse back to the same settings.
func TestOCRArgsRoundTrip(t *testing.T) {
	tests := [][]string{
		nil,
		{"--ocr"},
		{"--ocr", "--ocr-langs", "eng+deu", "--ocr-max-pages", "7", "--ocr-timeout", "2m30s"},
	}
	for _, args := range tests {
		var a, b ocrFlags
		fs := flag.NewFlagSet("a", flag.ContinueOnError)
		a.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		fs2 := flag.NewFlagSet("b", flag.ContinueOnError)
		b.register(fs2)
		if err := fs2.Parse(a.args()); err != nil {
			t.Fatalf("%v: args %v: %v", args, a.args(), err)
		}
		if a.on != b.on || a.langs != b.langs || a.maxPages != b.maxPages || a.timeout != b.timeout {
			t.Errorf("%v: round trip through %v changed the settings", args, a.args())
		}
	}
}

// fullTextOverMCP asks a served index (found at the default location) for
// query with obsidian_full_text_search and returns the first hit.
func fullTextOverMCP(t *testing.T, bin, path, cache, vault, query string) tools.FullTextHit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(bin, "serve", "--vault", vault, "--include-pdfs", "--watch=false")
	cmd.Env = append(os.Environ(), "PATH="+path, "XDG_CACHE_HOME="+cache)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ocr", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_full_text_search", Arguments: map[string]any{"query": query}})
	if err != nil || res.IsError {
		t.Fatalf("obsidian_full_text_search: %v %+v", err, res)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out tools.FullTextOutput
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Hits) == 0 {
		t.Fatalf("obsidian_full_text_search %q: %v, %s", query, err, raw)
	}
	return out.Hits[0]
}
