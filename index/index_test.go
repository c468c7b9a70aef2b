package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func open(t *testing.T, root, path string, pdfs bool) *Index {
	t.Helper()
	real, err := vault.RealRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(context.Background(), path, NewSettings(real, pdfs, chunk.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func syncDisk(t *testing.T, ix *Index) Stats {
	t.Helper()
	src, err := ix.DiskSource(context.Background(), 0, vault.PDFReader{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.Sync(context.Background(), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

func search(t *testing.T, ix *Index, q string) []Hit {
	t.Helper()
	var hits []Hit
	if err := ix.BM25().Search(context.Background(), q, 1000, fts5Params, func(h Hit) bool { hits = append(hits, h); return true }); err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func TestOpenPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "enquire-mcp")
	ix := open(t, "../testdata/vault", filepath.Join(dir, "v.db"), false)
	syncDisk(t, ix)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < 2 {
		t.Fatalf("index folder holds %v (%v), want the db and its WAL", entries, err)
	}
	paths := []string{dir}
	for _, e := range entries {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg-test")
	a, err := DefaultPath("/vaults/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DefaultPath("/vaults/b")
	if !strings.HasPrefix(a, "/tmp/xdg-test/enquire-mcp/") || !strings.HasSuffix(a, ".db") || a == b {
		t.Fatalf("DefaultPath = %s, %s", a, b)
	}
}

func TestSyncLifecycle(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	ix := open(t, root, filepath.Join(t.TempDir(), "ix.db"), false)
	st := syncDisk(t, ix)
	if st.Added != 43 || st.Updated+st.Deleted+st.Renamed+st.Unchanged != 0 || st.Chunks < 40 {
		t.Fatalf("first sync %+v", st)
	}
	if st := syncDisk(t, ix); st.Unchanged != 43 || st.Added+st.Updated+st.Deleted+st.Renamed != 0 || st.Chunks == 0 {
		t.Fatalf("resync %+v", st)
	}
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(time.Hour)
	// Same content, new mtime: confirmed unchanged by hash.
	if err := os.Chtimes(filepath.Join(root, "Home.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if st := syncDisk(t, ix); st.Unchanged != 43 || st.Updated != 0 {
		t.Fatalf("touch: %+v", st)
	}
	write("Cooking/Knife Skills.md", "# Knife Skills\n\nA zanshin whetstone routine.\n")
	write("New Note.md", "# New\n\nquokka sightings\n")
	if err := os.Rename(filepath.Join(root, "Music/Guitar Chords.md"), filepath.Join(root, "Music/Chords.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "Health/Running.md")); err != nil {
		t.Fatal(err)
	}
	st = syncDisk(t, ix)
	if st.Updated != 1 || st.Added != 1 || st.Renamed != 1 || st.Deleted != 1 || st.Unchanged != 40 {
		t.Fatalf("changes: %+v", st)
	}
	for q, want := range map[string]string{"zanshin whetstone": "Cooking/Knife Skills.md", "quokka": "New Note.md", "barre chord capo": "Music/Chords.md"} {
		if hits := search(t, ix, q); len(hits) == 0 || hits[0].Path != want {
			t.Errorf("%q → %+v, want %s first", q, hits, want)
		}
	}
	for _, q := range []string{"julienne brunoise", "cadence interval marathon"} {
		for _, h := range search(t, ix, q) {
			if h.Path == "Cooking/Knife Skills.md" || h.Path == "Health/Running.md" || h.Path == "Music/Guitar Chords.md" {
				t.Errorf("%q still finds stale %s", q, h.Path)
			}
		}
	}
}

func TestSearchRanking(t *testing.T) {
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"), false)
	syncDisk(t, ix)
	tests := []struct{ query, want string }{
		{"levain hydration", "Cooking/Sourdough Bread.md"},
		{"K8s pods", "Software/Kubernetes.md"},
		{"机器学习", "Languages/中文笔记.md"},
		{"東京", "Languages/日本語メモ.md"},
		{"café naïve", "Syntax/Unicode NFD.md"},
		{"cafe", "Syntax/Unicode NFD.md"},
		{`"worker pool"`, "Software/Concurrency Patterns.md"},
		{"the quasar", "Syntax/Malformed YAML.md"},
		{"running", "Health/Running.md"},
	}
	for _, tt := range tests {
		hits := search(t, ix, tt.query)
		if len(hits) == 0 || hits[0].Path != tt.want {
			t.Errorf("%q: top %+v, want %s", tt.query, hits[:min(2, len(hits))], tt.want)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Fatalf("%q: scores not descending at %d", tt.query, i)
			}
		}
	}
	if hits := search(t, ix, "zzskipme"); len(hits) != 0 {
		t.Errorf("skipped folder indexed: %+v", hits)
	}
	// Headings and lines come back with the chunk.
	hits := search(t, ix, "Hawking radiation")
	if hits[0].LineStart == 0 || hits[0].LineEnd < hits[0].LineStart {
		t.Errorf("hit %+v has no line range", hits[0])
	}
}

func TestMatchExpr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"levain hydration", `"levain" OR "hydration"`},
		{"the levain", `"levain"`},
		{"the of and", `"the" OR "of" OR "and"`},
		{`"worker pool" goroutines`, `"worker pool" OR "goroutines"`},
		{`"unbalanced quote`, `"unbalanced" OR "quote"`},
		{`a AND b OR NOT c`, `"b" OR "c"`},
		{`NEAR(x y)`, `"near" OR "x" OR "y"`},
		{`col:val*`, `"col" OR "val"`},
		{"机器学习", `"机器" OR "器学" OR "学习"`},
		{"寿", `"寿"`},
		{"Café", `"café"`},
		{"***", ``},
		{"", ``},
		{"x x X", `"x"`},
		{"\x00\xff", ``},
	}
	for _, tt := range tests {
		if got := MatchExpr(tt.in); got != tt.want {
			t.Errorf("MatchExpr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if n := strings.Count(MatchExpr(strings.Repeat("word", 1)+strings.Repeat(" w", 0)+longQuery(200)), " OR "); n != maxTerms-1 {
		t.Errorf("a long query gives %d ORs, want the cap %d", n, maxTerms-1)
	}
}

func longQuery(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(" term")
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26%26))
	}
	return b.String()
}

// FuzzSearch: no query string may make FTS5 fail.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{`"`, `""`, `(`, `)`, `*`, `^`, `:`, `-`, `+`, `NEAR`, `AND OR NOT`, `a"b`, `"a" "b"`, "机器\"学习", "\x00", "{col}:x", `\`, "'", "x*y", "🙂"} {
		f.Add(s)
	}
	// A file, not ":memory:": the in-memory BM25 copy is built on a
	// connection of its own to the same path (a ":memory:" path became a
	// file of that name in the working directory). The connection is
	// opened as the index opens its own (WAL, a busy timeout): once the
	// index has been quiet for copyQuiet, that build switches the file to
	// WAL, which a bare connection met as "database is locked".
	path := filepath.Join(f.TempDir(), "fuzz.db")
	c, err := openConn(context.Background(), path)
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	ix := newIndex(path, NewSettings("/v", false, chunk.Options{}))
	ix.write, ix.readers = c, make(chan *sqlite3.Conn, 1)
	if err := errors.Join(registerFTS(c), ix.create()); err != nil {
		f.Fatal(err)
	}
	if err := exec1(c, `INSERT INTO fts(rowid, title, aliases, headings, tags, body, cjk) VALUES (1, 'a', 'b', 'c', 'd', 'near and or not x y', '机器')`); err != nil {
		f.Fatal(err)
	}
	ix.readers <- c
	f.Fuzz(func(t *testing.T, q string) {
		if err := ix.BM25().Search(context.Background(), q, 100, fts5Params, func(Hit) bool { return true }); err != nil {
			t.Fatalf("query %q → %q: %v", q, MatchExpr(q), err)
		}
	})
}

func TestSettingsChangeRebuilds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ix.db")
	real, _ := vault.RealRoot("../testdata/vault")
	ix, err := Open(context.Background(), path, NewSettings(real, false, chunk.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	syncDisk(t, ix)
	ix.Close()
	tests := []struct {
		name   string
		s      Settings
		reason string
	}{
		{"same", NewSettings(real, false, chunk.Options{}), ""},
		{"chunking", NewSettings(real, false, chunk.Options{MaxTokens: 100}), "chunking"},
		{"pdfs", NewSettings(real, true, chunk.Options{MaxTokens: 100}), "PDFs included"},
		{"other vault", NewSettings("/elsewhere", true, chunk.Options{MaxTokens: 100}), "belonged to vault"},
	}
	for _, tt := range tests {
		ix, err := Open(context.Background(), path, tt.s, false)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		rows, _ := ix.fileRows(context.Background())
		ix.Close()
		if !strings.Contains(ix.Rebuilt, tt.reason) || (tt.reason == "") != (ix.Rebuilt == "") {
			t.Errorf("%s: Rebuilt = %q, want %q", tt.name, ix.Rebuilt, tt.reason)
		}
		if tt.reason != "" && len(rows) != 0 {
			t.Errorf("%s: %d files survived a rebuild", tt.name, len(rows))
		}
	}
}

func TestForeignAndDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	c, err := sqlite3.Open(foreign)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`CREATE TABLE mine(x); INSERT INTO mine VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	s := NewSettings("/v", false, chunk.Options{})
	if _, err := Open(context.Background(), foreign, s, false); !errors.Is(err, ErrForeign) {
		t.Fatalf("foreign file: err = %v, want ErrForeign", err)
	}
	if _, err := Open(context.Background(), foreign, s, true); err != nil {
		t.Fatalf("--rebuild on a foreign file: %v", err)
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), garbage, s, false); err == nil || !strings.Contains(err.Error(), "--rebuild") {
		t.Fatalf("garbage file: err = %v, want advice to --rebuild", err)
	}
	ix, err := Open(context.Background(), garbage, s, true)
	if err != nil {
		t.Fatalf("--rebuild on garbage: %v", err)
	}
	ix.Close()
}

func TestOldSchemaVersionRebuilds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ix.db")
	s := NewSettings("/v", false, chunk.Options{})
	ix, err := Open(context.Background(), path, s, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.write.Exec(`PRAGMA user_version = 0`); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	ix, err = Open(context.Background(), path, s, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !strings.Contains(ix.Rebuilt, "schema version 0") {
		t.Fatalf("Rebuilt = %q", ix.Rebuilt)
	}
}

func TestCloseTwiceAndSearchAfterClose(t *testing.T) {
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "ix.db"), NewSettings("/v", false, chunk.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan bool), make(chan bool)
	done := make(chan error)
	go func() { // a search in flight while Close runs
		done <- ix.reader(context.Background(), func(*sqlite3.Conn) error { started <- true; <-release; return nil })
	}()
	<-started
	closed := make(chan error)
	go func() { closed <- ix.Close() }()
	release <- true
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := ix.BM25().Search(context.Background(), "x", 10, fts5Params, func(Hit) bool { return true }); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("search after Close: %v", err)
	}
}

// A PDF the extractor could not even try (a failure outside the file) gets
// no row: the next sync retries it. A corrupt one is remembered.
func TestPDFRetryNotCached(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	ix := open(t, root, filepath.Join(t.TempDir(), "v.db"), true)
	ctx := context.Background()
	failing := vault.PDFReader{Extract: func(context.Context, *os.File, pdf.Options) (*pdf.Document, error) {
		return nil, errors.New("start extractor: fork: resource temporarily unavailable")
	}}
	tests := []struct {
		name      string
		reader    vault.PDFReader
		wantAdded int // PDFs added by this sync
		cached    bool
	}{
		{"extractor cannot start", failing, 0, false},
		{"retried and read", vault.PDFReader{}, 1, true},
	}
	for _, tt := range tests {
		src, err := ix.DiskSource(ctx, 0, tt.reader)
		if err != nil {
			t.Fatal(err)
		}
		before := pdfRows(t, ix)
		if _, err := ix.Sync(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		if got := pdfRows(t, ix) - before; got != tt.wantAdded {
			t.Errorf("%s: %d PDF rows added, want %d", tt.name, got, tt.wantAdded)
		}
		info, err := os.Stat(filepath.Join(root, "Attachments", "paper.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ix.CachedPDF(ctx, "Attachments/paper.pdf", info.Size(), info.ModTime()); ok != tt.cached {
			t.Errorf("%s: cached %v, want %v", tt.name, ok, tt.cached)
		}
	}
}

func pdfRows(t *testing.T, ix *Index) int {
	t.Helper()
	rows, err := ix.fileRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, ok := rows["Attachments/paper.pdf"]
	if ok {
		return 1
	}
	return 0
}
