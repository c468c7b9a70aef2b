package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

var chunkIDPattern = regexp.MustCompile(`^.+#\d+@[0-9a-f]{8}$`)

func intPtr(n int) *int          { return &n }
func strPtr(s string) *string    { return &s }
func parsedText(b []byte) string { return norm.NFC.String(strings.ReplaceAll(string(b), "\r\n", "\n")) }

// checkSlices asserts that a passage's byte offsets slice its text out of
// the file (CRLF and NFC aside, as the parser normalises them) and that
// its first line is the file line of char_start.
func checkSlices(t *testing.T, raw []byte, p Passage) {
	t.Helper()
	if p.CharStart < 0 || p.CharEnd < p.CharStart || p.CharEnd > len(raw) {
		t.Fatalf("%s: offsets [%d,%d) outside the file (%d bytes)", p.ChunkID, p.CharStart, p.CharEnd, len(raw))
	}
	if got := parsedText(raw[p.CharStart:p.CharEnd]); got != p.Text {
		t.Fatalf("%s: file[%d:%d] = %q, text %q", p.ChunkID, p.CharStart, p.CharEnd, got, p.Text)
	}
	if line := bytes.Count(raw[:p.CharStart], []byte("\n")) + 1; p.Text != "" && line != p.LineStart {
		t.Fatalf("%s: char_start is on line %d, line_start %d", p.ChunkID, line, p.LineStart)
	}
}

// offsetsNote is a note with frontmatter, CRLF line ends, CJK text, an NFD
// line and several chunks, written by passageVault (it is not in
// testdata/vault so that the fixture's counts stay as other tests pin
// them).
const offsetsNote = "Syntax/Passage Offsets.md"

// passageVault copies testdata/vault and adds offsetsNote and a note it
// links to (and that links back and shares a rare tag).
func passageVault(t *testing.T) string {
	t.Helper()
	dir := vaulttest.Copy(t, fixtureVault)
	alpha, omega := make([]string, 90), make([]string, 90)
	for i := range alpha {
		alpha[i], omega[i] = fmt.Sprintf("alpha%d", i), fmt.Sprintf("omega%d", i)
	}
	lines := []string{
		"---", "title: Passage Offsets", "tags: [passage-fixture]", "---",
		"# Passage Offsets", "",
		"This note tests passage offsets: frontmatter above, Windows line endings and CJK text. " + strings.Join(alpha, " ") + ".",
		"",
		"## 中文段落", "",
		strings.Repeat("光合作用把光能转化为化学能。", 8),
		strings.Repeat("第二行：叶绿体吸收阳光，产生氧气和葡萄糖。", 3),
		"",
		"## Lighthouse keeping", "",
		strings.Repeat("The lighthouse keeper trims the wick every evening and logs the weather. ", 10),
		"Café naïve " + norm.NFD.String("décor résumé") + " lighthouse beacon.",
		"",
		"## Closing", "",
		"Lighthouse beacons and tidal charts close the note. " + strings.Join(omega, " ") + ".",
		"See [[Photosynthesis]] and [[Passage Neighbour]].",
	}
	write(t, dir, offsetsNote, strings.Join(lines, "\r\n")+"\r\n")
	write(t, dir, "Syntax/Passage Neighbour.md", "---\ntags: [passage-fixture]\n---\n# Passage Neighbour\n\nTide tables, linked from [[Passage Offsets]].\n")
	return dir
}

func passageEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	dir := passageVault(t)
	e, err := newEngine(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return e, dir
}

func TestPassagesSliceTheFile(t *testing.T) {
	e, dir := passageEngine(t)
	res := mustSearch(t, e, Request{Query: "lighthouse beacon 光合作用", MaxPassages: intPtr(3)})
	if len(res.Hits) == 0 || res.Hits[0].Path != offsetsNote {
		t.Fatalf("hits %q", hitPaths(res))
	}
	raw, err := os.ReadFile(filepath.Join(dir, offsetsNote))
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Hits[0].Passages
	if len(ps) != 3 {
		t.Fatalf("want 3 passages, got %d", len(ps))
	}
	for i, p := range ps {
		checkSlices(t, raw, p)
		if !chunkIDPattern.MatchString(p.ChunkID) || !strings.HasPrefix(p.ChunkID, "Syntax/Passage Offsets.md#") {
			t.Errorf("chunk id %q", p.ChunkID)
		}
		if i > 0 && p.Score > ps[i-1].Score {
			t.Errorf("passages not best first: %v", ps)
		}
	}
	if !strings.Contains(ps[0].Text, "lighthouse") && !strings.Contains(ps[0].Text, "光合作用") {
		t.Errorf("best passage does not hold the query: %q", ps[0].Text)
	}
	for _, h := range res.Hits {
		if len(h.Passages) == 0 || len(h.Passages) > 3 {
			t.Errorf("%s: %d passages", h.Path, len(h.Passages))
		}
	}
}

// TestEveryChunkSlicesItsFile renders every chunk of every markdown note
// of the fixture (frontmatter, CRLF, CJK, NFD, code fences) and checks its
// offsets against the file.
func TestEveryChunkSlicesItsFile(t *testing.T) {
	e, dir := passageEngine(t)
	ctx := context.Background()
	for i, n := range e.Snapshot().Notes {
		if n.Kind != vault.KindMarkdown {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, n.Path))
		if err != nil {
			t.Fatal(err)
		}
		file := e.readFileText(ctx, n)
		for _, c := range e.chunks[i] {
			checkSlices(t, raw, e.passage(n, file, c, 0))
		}
	}
}

func TestNoPassagesByDefault(t *testing.T) {
	e := testEngine(t)
	for _, gran := range []string{GranularityNote, GranularityBlock} {
		res := mustSearch(t, e, Request{Query: "lighthouse", Granularity: gran})
		for _, h := range res.Hits {
			if h.Passages != nil {
				t.Fatalf("%s: passages without max_passages", gran)
			}
		}
		if res.NextCursor != "" || res.Related != nil {
			t.Fatalf("%s: cursor or related without asking", gran)
		}
	}
}

func TestPassageAndCursorValidation(t *testing.T) {
	e := testEngine(t)
	other := mustSearch(t, e, Request{Query: "sourdough", Limit: 1, Cursor: strPtr("")})
	if other.NextCursor == "" {
		t.Fatal("no next_cursor")
	}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"max_passages 0", Request{Query: "x", MaxPassages: intPtr(0)}, "max_passages must be between 1 and 10, got 0"},
		{"max_passages 1000", Request{Query: "x", MaxPassages: intPtr(1000)}, "got 1000"},
		{"max_passages in block", Request{Query: "x", MaxPassages: intPtr(2), Granularity: GranularityBlock}, "granularity \"note\" only"},
		{"min_similarity -0.1", Request{Query: "x", MinSimilarity: -0.1}, "min_similarity must be between 0 and 1"},
		{"min_similarity 1.5", Request{Query: "x", MinSimilarity: 1.5}, "got 1.5"},
		{"cursor of another query", Request{Query: "lighthouse", Cursor: &other.NextCursor}, "cursor belongs to another query"},
		{"cursor with other filters", Request{Query: "sourdough", Folder: "Cooking", Cursor: &other.NextCursor}, "cursor belongs to another query"},
		{"garbage cursor", Request{Query: "sourdough", Cursor: strPtr("not a cursor!")}, "not a next_cursor"},
		{"truncated cursor", Request{Query: "sourdough", Cursor: strPtr(other.NextCursor[:10])}, "not a next_cursor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Search(context.Background(), tt.req)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCursorPagesTheFusedList(t *testing.T) {
	seen := &rankersRequest{}
	fake := &fakeRanker{name: "bm25", paths: []string{"Cooking/Sourdough Bread.md", "Science/Photosynthesis.md"}, seen: &seen.req}
	e := engineWith(t, fake)
	const query = "notes link"
	all := mustSearch(t, e, Request{Query: query, Limit: 40})
	if all.TotalCandidates < 12 {
		t.Fatalf("fixture gives only %d candidates", all.TotalCandidates)
	}
	var paged []string
	cursor := ""
	for pages := 0; ; pages++ {
		seen.req.Query = ""
		res := mustSearch(t, e, Request{Query: query, Limit: 5, Cursor: &cursor})
		if pages > 0 && seen.req.Query != "" {
			t.Fatal("a later page ran the rankers again instead of using the cached list")
		}
		if res.TotalCandidates != all.TotalCandidates {
			t.Fatalf("total %d, want %d", res.TotalCandidates, all.TotalCandidates)
		}
		paged = append(paged, hitPaths(res)...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	want := hitPaths(all)
	if len(paged) != min(40, all.TotalCandidates) || !slices.Equal(paged[:len(want)], want) {
		t.Fatalf("pages %q\nwant %q", paged, want)
	}
}

// rankersRequest records what a fake ranker was asked.
type rankersRequest struct{ req rankers.Request }

func TestChunkIDsStableAcrossRestartsAndOtherEdits(t *testing.T) {
	ctx := context.Background()
	dir := passageVault(t)
	const path = offsetsNote
	ids := func() []string {
		e, err := newEngine(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		i, _ := e.Snapshot().NoteIDExact(path)
		var out []string
		for _, c := range e.chunks[i] {
			out = append(out, ChunkID(e.Snapshot().Notes[i], c))
		}
		return out
	}
	before := ids()
	if len(before) < 3 {
		t.Fatalf("fixture note has %d chunks; the test needs several", len(before))
	}
	if again := ids(); !slices.Equal(before, again) {
		t.Fatalf("ids changed across a restart: %q vs %q", before, again)
	}
	write(t, dir, "Software/Kubernetes.md", "# Kubernetes\n\nRewritten entirely.\n")
	write(t, dir, "Aaa First.md", "# A new note sorting first\n")
	if after := ids(); !slices.Equal(before, after) {
		t.Fatalf("ids changed after editing other notes: %q vs %q", before, after)
	}

	// Editing the note itself: a passage inserted on top moves the others;
	// their old ids still find their text, and a removed passage is stale.
	e0, err := newEngine(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	last := before[len(before)-1]
	oldLast, err := e0.GetChunk(ctx, last, 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), "# Passage Offsets\r\n", "# Passage Offsets\r\n\r\n"+strings.Repeat("An inserted paragraph about nothing. ", 70)+"\r\n", 1)
	edited = strings.Replace(edited, "trims the wick", "polishes the lens", 1)
	write(t, dir, path, edited)
	e1, err := newEngine(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := e1.GetChunk(ctx, last, 0)
	if err != nil {
		t.Fatalf("moved chunk: %v", err)
	}
	if moved.Text != oldLast.Text || moved.ChunkID == last {
		t.Fatalf("moved chunk: id %s text %q, want the text of %s under a new id", moved.ChunkID, moved.Text, last)
	}
	var lighthouse string
	for _, id := range before {
		v, err := e0.GetChunk(ctx, id, 0)
		if err == nil && strings.Contains(v.Text, "trims the wick") {
			lighthouse = id
		}
	}
	_, err = e1.GetChunk(ctx, lighthouse, 0)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "stale") || !strings.Contains(err.Error(), path) {
		t.Fatalf("edited chunk: %v", err)
	}
}

func TestGetChunk(t *testing.T) {
	e, dir := passageEngine(t)
	ctx := context.Background()
	i, _ := e.Snapshot().NoteIDExact(offsetsNote)
	n, chunks := e.Snapshot().Notes[i], e.chunks[i]
	raw, err := os.ReadFile(filepath.Join(dir, n.Path))
	if err != nil {
		t.Fatal(err)
	}
	mid := len(chunks) / 2
	v, err := e.GetChunk(ctx, ChunkID(n, chunks[mid]), 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Index != mid || v.Chunks != len(chunks) || len(v.Before) != 1 || len(v.After) != min(1, len(chunks)-mid-1) {
		t.Fatalf("index %d of %d, before %d after %d", v.Index, v.Chunks, len(v.Before), len(v.After))
	}
	if len(v.Headings) == 0 || v.Headings[0] != "Passage Offsets" {
		t.Fatalf("heading path %q", v.Headings)
	}
	for _, p := range append(append([]Passage{v.Passage}, v.Before...), v.After...) {
		checkSlices(t, raw, p)
	}
	if v.Before[0].Index != mid-1 {
		t.Fatalf("before is chunk %d", v.Before[0].Index)
	}
	all, err := e.GetChunk(ctx, ChunkID(n, chunks[0]), MaxChunkContext)
	if err != nil || len(all.Before) != 0 || len(all.After) != len(chunks)-1 {
		t.Fatalf("context at the first chunk: %v %+v", err, all)
	}

	bad := []struct{ id, want string }{
		{"Nowhere/Missing.md#0@00000000", `chunk_id "Nowhere/Missing.md#0@00000000" names a note that is not in the vault`},
		{"Syntax/Passage Offsets.md#0@deadbeef", `is stale: note "Syntax/Passage Offsets.md"`},
		{"Syntax/Passage Offsets.md#99@deadbeef", "is stale"},
		{"no hash at all", "not of the form"},
		{"Syntax/Passage Offsets.md#x@12345678", "not of the form"},
		{"", "not of the form"},
	}
	for _, b := range bad {
		_, err := e.GetChunk(ctx, b.id, 0)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("GetChunk(%q): %v, want %q", b.id, err, b.want)
		}
	}
	if _, err := e.GetChunk(ctx, ChunkID(n, chunks[0]), MaxChunkContext+1); !errors.Is(err, ErrInvalid) {
		t.Errorf("context over the maximum: %v", err)
	}
}

func TestExpandAddsRelatedNotes(t *testing.T) {
	e, _ := passageEngine(t)
	base := mustSearch(t, e, Request{Query: "lighthouse keeper wick", Limit: 1})
	res := mustSearch(t, e, Request{Query: "lighthouse keeper wick", Limit: 1, Expand: true})
	if !slices.Equal(hitPaths(base), hitPaths(res)) || base.Hits[0].Score != res.Hits[0].Score {
		t.Fatalf("expand changed the matches: %q vs %q", hitPaths(base), hitPaths(res))
	}
	if hitPaths(res)[0] != offsetsNote {
		t.Fatalf("hits %q", hitPaths(res))
	}
	got := map[string]string{}
	for _, r := range res.Related {
		if r.From != offsetsNote {
			t.Errorf("related %s from %s", r.Path, r.From)
		}
		if slices.Contains(hitPaths(res), r.Path) {
			t.Errorf("related %s is a match", r.Path)
		}
		if _, dup := got[r.Path]; dup {
			t.Errorf("related %s twice", r.Path)
		}
		got[r.Path] = r.Via
	}
	want := map[string]string{
		"Syntax/Passage Neighbour.md": ViaLinksTo, // also linked_from and a shared tag: the first way wins
		"Science/Photosynthesis.md":   ViaLinksTo,
	}
	for p, via := range want {
		if got[p] != via {
			t.Errorf("related %s via %q, want %q (all: %v)", p, got[p], via, got)
		}
	}
	// Filters apply to related notes too.
	scoped := mustSearch(t, e, Request{Query: "lighthouse keeper wick", Limit: 1, Expand: true, Folder: "Syntax"})
	for _, r := range scoped.Related {
		if !strings.HasPrefix(r.Path, "Syntax/") {
			t.Errorf("related %s escapes the folder filter", r.Path)
		}
	}
	wide := mustSearch(t, e, Request{Query: "the", Limit: 20, Expand: true})
	if len(wide.Related) > 10 {
		t.Errorf("%d related, cap is 10", len(wide.Related))
	}
}

func TestSharedRareTagRelates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "A.md", "---\ntags: [comet]\n---\nHalley returns in 2061.\n")
	write(t, dir, "B.md", "---\ntags: [comet]\n---\nA tail of dust and ice.\n")
	write(t, dir, "C.md", "Nothing in common.\n")
	e, err := newEngine(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	res := mustSearch(t, e, Request{Query: "Halley", Expand: true})
	if len(res.Related) != 1 || res.Related[0].Path != "B.md" || res.Related[0].Via != "shared_tag:#comet" || res.Related[0].From != "A.md" {
		t.Fatalf("related %+v", res.Related)
	}
}

// TestOffsetMidLine maps body offsets in the middle of lines (where a
// long line is cut into pieces), on CRLF, CJK and NFD lines.
func TestOffsetMidLine(t *testing.T) {
	e, dir := passageEngine(t)
	i, _ := e.Snapshot().NoteIDExact(offsetsNote)
	n := e.Snapshot().Notes[i]
	raw, err := os.ReadFile(filepath.Join(dir, offsetsNote))
	if err != nil {
		t.Fatal(err)
	}
	file := e.readFileText(context.Background(), n)
	for _, word := range []string{"alpha42", "化学能", "叶绿体", "keeper", "lighthouse beacon", "résumé", "omega89", "Passage Neighbour"} {
		at := strings.LastIndex(n.Body, norm.NFC.String(word))
		if at < 0 {
			t.Fatalf("%q not in the body", word)
		}
		off := file.offset(n, at)
		end := file.offset(n, at+len(norm.NFC.String(word)))
		if got := norm.NFC.String(string(raw[off:end])); got != norm.NFC.String(word) {
			t.Errorf("%q maps to file[%d:%d] = %q", word, off, end, got)
		}
	}
}

// TestConcurrentPagingAndExpand pages many queries at once (more than the
// cache holds) with passages and expand; run with -race.
func TestConcurrentPagingAndExpand(t *testing.T) {
	e := testEngine(t)
	queries := []string{"notes link", "sourdough", "goroutine", "garden", "travel", "rust", "kubernetes", "photosynthesis",
		"black holes", "pasta", "knife", "running", "guitar", "crawler", "ideas", "daily", "tags", "headings", "unicode", "yaml"}
	var wg sync.WaitGroup
	errs := make(chan error, len(queries))
	for _, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor := ""
			for range 5 {
				res, err := e.Search(context.Background(), Request{Query: q, Limit: 2, Cursor: &cursor, MaxPassages: intPtr(2), Expand: true})
				if err != nil {
					errs <- err
					return
				}
				if res.NextCursor == "" {
					return
				}
				cursor = res.NextCursor
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
