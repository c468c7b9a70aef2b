package search

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

const fixtureVault = "../testdata/vault"

var (
	fixtureOnce sync.Once
	fixture     *Engine
	fixtureErr  error
)

// testEngine searches testdata/vault (loaded once per package run).
func testEngine(t *testing.T) *Engine {
	t.Helper()
	fixtureOnce.Do(func() {
		fixture, fixtureErr = newEngine(context.Background(), fixtureVault)
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func newEngine(ctx context.Context, dir string, extra ...rankers.Ranker) (*Engine, error) {
	snap, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		return nil, err
	}
	return New(ctx, snap, analysis.New(), Options{}, extra...)
}

func hitPaths(r *Result) []string {
	out := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = h.Path
	}
	return out
}

func mustSearch(t *testing.T, e *Engine, req Request) *Result {
	t.Helper()
	res, err := e.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	return res
}

// TestGoldenTop1 pins the best hit of the fixture queries listed in
// testdata/MANIFEST.md, with and without the graph boost.
func TestGoldenTop1(t *testing.T) {
	e := testEngine(t)
	tests := []struct{ query, want string }{
		{"levain hydration", "Cooking/Sourdough Bread.md"},
		{"borrow checker lifetimes", "Software/Rust Ownership.md"},
		{"K8s pods", "Software/Kubernetes.md"},
		{"机器学习", "Languages/中文笔记.md"},
		{"quasar", "Syntax/Malformed YAML.md"},
		{"guanciale pecorino", "Cooking/Pasta Carbonara.md"},
		{"julienne brunoise honing steel", "Cooking/Knife Skills.md"},
		{"chlorophyll Calvin cycle", "Science/Photosynthesis.md"},
		{"subduction mid-ocean ridges", "Science/Plate Tectonics.md"},
		{"Hawking radiation event horizon", "Science/Black Holes.md"},
		{"goroutines select WaitGroup", "Software/Go Concurrency.md"},
		{"covering index query planner", "Software/Database Indexing.md"},
		{"heirloom blight staking", "Gardening/Tomatoes.md"},
		{"Fushimi Inari ryokan", "Travel/Kyoto Trip.md"},
		{"fan-out fan-in pipelines", "Software/Concurrency Patterns.md"},
		{"web crawler frontier", "Projects/Crawler.md"},
		{"vintage typewriters", "Archive/Ideas.md"},
		{"windows line endings", "Syntax/CRLF Note.md"},
		{"café naïve", "Syntax/Unicode NFD.md"},
		{"CAFE NAIVE", "Syntax/Unicode NFD.md"},
		{"寿司", "Languages/日本語メモ.md"},
		{"東京", "Languages/日本語メモ.md"},
		{"Levain bread", "Cooking/Sourdough Bread.md"},
		{"origami crane", "Misc/Orphan.md"},
		{"Fresnel lighthouse", "Archive/2019/Old Notes/Ancient.md"},
		{"barre chord capo", "Music/Guitar Chords.md"},
		{"cadence interval marathon", "Health/Running.md"},
		{"Start here", "Home.md"},
		{"baking bread", "Cooking/Sourdough Bread.md"},
	}
	for _, tt := range tests {
		for _, boost := range []bool{true, false} {
			res := mustSearch(t, e, Request{Query: tt.query, GraphBoost: boost})
			if len(res.Hits) == 0 || res.Hits[0].Path != tt.want {
				t.Errorf("%q (boost %v): top hits %q, want %q first", tt.query, boost, hitPaths(res)[:min(3, len(res.Hits))], tt.want)
			}
		}
	}
}

func TestSkippedFoldersAreNotSearchable(t *testing.T) {
	res := mustSearch(t, testEngine(t), Request{Query: "zzskipme"})
	if len(res.Hits) != 0 || res.TotalCandidates != 0 {
		t.Fatalf("zzskipme found %q", hitPaths(res))
	}
}

func TestGraphBoostEndToEnd(t *testing.T) {
	e := testEngine(t)
	order := func(q string, boost bool) []string {
		return hitPaths(mustSearch(t, e, Request{Query: q, GraphBoost: boost}))
	}
	// Near tie: the other top hits link to Go Concurrency, third on text
	// alone; it passes Crawler but not the clearly better first hit.
	plain, boosted := order("channel pattern", false), order("channel pattern", true)
	if plain[2] != "Software/Go Concurrency.md" || boosted[1] != "Software/Go Concurrency.md" || boosted[0] != plain[0] {
		t.Errorf("channel pattern: plain %q, boosted %q; want Go Concurrency lifted from 3rd to 2nd", plain[:3], boosted[:3])
	}
	// Clear win: Concurrency Patterns scores ~3x Go Concurrency on TF-IDF,
	// so links from the other hits cannot lift Go Concurrency over it.
	plain, boosted = order("worker pool goroutine", false), order("worker pool goroutine", true)
	if plain[0] != "Software/Concurrency Patterns.md" || boosted[0] != plain[0] {
		t.Errorf("worker pool goroutine: plain %q, boosted %q; the clear best match must stay first", plain[:3], boosted[:3])
	}
}

func TestFolderFilter(t *testing.T) {
	e := testEngine(t)
	q := "goroutines channels worker crawler pipeline concurrency"
	for _, folder := range []string{"Projects", "Projects/", "./Projects", "/Projects", "projects", " Projects "} {
		res := mustSearch(t, e, Request{Query: q, Folder: folder})
		if len(res.Hits) == 0 {
			t.Fatalf("folder %q: no hits", folder)
		}
		for _, h := range res.Hits {
			if !strings.HasPrefix(h.Path, "Projects/") {
				t.Errorf("folder %q: hit %s outside the folder", folder, h.Path)
			}
		}
	}
	// "Proj" is not a folder prefix of "Projects/…".
	if res := mustSearch(t, e, Request{Query: q, Folder: "Proj"}); len(res.Hits) != 0 {
		t.Errorf("folder Proj matched %q", hitPaths(res))
	}
	for _, bad := range []string{"../", "../Projects", "a/../../b"} {
		if _, err := e.Search(context.Background(), Request{Query: q, Folder: bad}); !errors.Is(err, ErrInvalid) {
			t.Errorf("folder %q: err = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestFiltersApplyBeforeLimit: the reference server filtered after
// cutting to limit and returned too few hits; here limit counts filtered
// hits only.
func TestFiltersApplyBeforeLimit(t *testing.T) {
	e := testEngine(t)
	q := "goroutines"
	// Without feedback, whose expansion terms come from the first hits and
	// so differ with the folder filter, the filtered candidates are exactly
	// the unfiltered ones in the folder.
	noFeedback := map[string]float64{rankers.SignalFeedback: 0}
	all := hitPaths(mustSearch(t, e, Request{Query: q, Limit: 100, Weights: noFeedback}))
	if all[0] == "Syntax/Wikilinks.md" {
		t.Fatal("fixture changed: the test needs Syntax/Wikilinks.md below the top")
	}
	res := mustSearch(t, e, Request{Query: q, Limit: 1, Folder: "Syntax", Weights: noFeedback})
	if len(res.Hits) != 1 || res.Hits[0].Path != "Syntax/Wikilinks.md" {
		t.Fatalf("limit 1 + folder Syntax = %q, want the best Syntax note", hitPaths(res))
	}
	inSyntax := 0
	for _, p := range all {
		if strings.HasPrefix(p, "Syntax/") {
			inSyntax++
		}
	}
	if res.TotalCandidates != inSyntax {
		t.Fatalf("total_candidates = %d, want %d (filtered candidates)", res.TotalCandidates, inSyntax)
	}
}

func TestFrontmatterFilter(t *testing.T) {
	e := testEngine(t)
	q := "sourdough bread carbonara pasta knife rust borrow kubernetes pods crawler"
	tests := []struct {
		name   string
		filter map[string]any
		want   []string
	}{
		{"string", map[string]any{"status": "done"}, []string{"Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{"case and space", map[string]any{"status": "  DONE "}, []string{"Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{"array is OR", map[string]any{"status": []any{"done", "draft"}}, []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{"number", map[string]any{"rating": 5.0}, []string{"Cooking/Sourdough Bread.md"}},
		{"number as string", map[string]any{"rating": "4"}, []string{"Cooking/Pasta Carbonara.md"}},
		{"list membership", map[string]any{"tags": "recipe"}, []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{"tag with hash", map[string]any{"tags": "#Recipe"}, []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{"AND across keys", map[string]any{"status": "done", "tags": "recipe"}, []string{"Cooking/Sourdough Bread.md"}},
		{"missing key excludes", map[string]any{"no-such-key": "x"}, nil},
		{"boolean never equals a string", map[string]any{"status": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustSearch(t, e, Request{Query: q, Limit: 100, Frontmatter: tt.filter})
			got := hitPaths(res)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("hits = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFrontmatterFilterBooleans(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", "---\ndraft: true\n---\nalpha words\n")
	write(t, dir, "b.md", "---\ndraft: false\n---\nalpha words\n")
	write(t, dir, "c.md", "---\ndraft: \"true\"\n---\nalpha words\n")
	e, err := newEngine(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got := hitPaths(mustSearch(t, e, Request{Query: "alpha", Frontmatter: map[string]any{"draft": true}}))
	slices.Sort(got)
	if want := []string{"a.md", "c.md"}; !slices.Equal(got, want) {
		t.Fatalf("draft=true matched %q, want %q", got, want)
	}
}

func TestRequestValidation(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		name string
		req  Request
		msg  string
	}{
		{"empty query", Request{Query: "   "}, "query is empty"},
		{"query too long", Request{Query: strings.Repeat("a", MaxQueryRunes+1)}, "maximum is 4096"},
		{"invalid utf-8", Request{Query: "\xff\xfe"}, "UTF-8"},
		{"limit too big", Request{Query: "x", Limit: 101}, "limit must be between 1 and 100"},
		{"negative limit", Request{Query: "x", Limit: -1}, "limit"},
		{"min_signals too big", Request{Query: "x", MinSignals: 4}, "min_signals"},
		{"bad granularity", Request{Query: "x", Granularity: "page"}, "granularity"},
		{"unknown signal", Request{Query: "x", Signals: []string{"grep"}}, "unknown signal"},
		{"object filter", Request{Query: "x", Frontmatter: map[string]any{"a": map[string]any{"b": 1}}}, "got an object"},
		{"null filter", Request{Query: "x", Frontmatter: map[string]any{"a": nil}}, "got null"},
		{"empty array filter", Request{Query: "x", Frontmatter: map[string]any{"a": []any{}}}, "empty array"},
		{"nested array filter", Request{Query: "x", Frontmatter: map[string]any{"a": []any{[]any{"b"}}}}, "array items"},
		{"empty key", Request{Query: "x", Frontmatter: map[string]any{" ": "b"}}, "empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Search(context.Background(), tt.req)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tt.msg)
			}
		})
	}
	// The longest allowed query is fine.
	if _, err := e.Search(context.Background(), Request{Query: strings.Repeat("é", MaxQueryRunes)}); err != nil {
		t.Fatalf("4096-rune query: %v", err)
	}
}

func TestHostileQueriesNeverFail(t *testing.T) {
	e := testEngine(t)
	for _, q := range []string{
		`"unbalanced`, `(((`, `a AND OR NOT b`, `*`, `col:val`, `NEAR(a b)`, `^`, `\`, "\x00",
		"💥🔥", `'; DROP TABLE notes; --`, `[[Home]]`, `#tag`, strings.Repeat("(", 4096),
		"ﷺ", "\u202e", "a\u0301\u0301\u0301", strings.Repeat("the ", 1000),
	} {
		if _, err := e.Search(context.Background(), Request{Query: q, GraphBoost: true, Granularity: GranularityBlock}); err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("query %q: %v", q, err)
		}
	}
}

func TestStaleAndAge(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "old.md", "apricot orchard\n")
	write(t, dir, "new.md", "apricot jam\n")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	old := now.Add(-400 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}
	fresh := now.Add(-36 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "new.md"), fresh, fresh); err != nil {
		t.Fatal(err)
	}
	snap, err := vault.Load(context.Background(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		staleDays int
		oldStale  bool
	}{{0, true}, {401, false}, {400, true}} {
		e, err := New(context.Background(), snap, analysis.New(), Options{StaleDays: tt.staleDays, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		res := mustSearch(t, e, Request{Query: "apricot"})
		for _, h := range res.Hits {
			switch h.Path {
			case "old.md":
				if h.AgeDays != 400 || h.Stale != tt.oldStale {
					t.Errorf("staleDays %d: old.md age %d stale %v, want 400 %v", tt.staleDays, h.AgeDays, h.Stale, tt.oldStale)
				}
			case "new.md":
				if h.AgeDays != 1 || h.Stale {
					t.Errorf("new.md age %d stale %v, want 1 false", h.AgeDays, h.Stale)
				}
			}
		}
	}
	// age_days follows the live file, not the snapshot.
	e, err := New(context.Background(), snap, analysis.New(), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "old.md"), fresh, fresh); err != nil {
		t.Fatal(err)
	}
	for _, h := range mustSearch(t, e, Request{Query: "orchard"}).Hits {
		if h.Path == "old.md" && (h.AgeDays != 1 || h.Stale) {
			t.Errorf("after touching old.md: age %d stale %v, want 1 false", h.AgeDays, h.Stale)
		}
	}
}

func TestSnippetMarksTermsAndLines(t *testing.T) {
	e := testEngine(t)
	res := mustSearch(t, e, Request{Query: "levain hydration"})
	h := res.Hits[0]
	if !strings.Contains(h.Snippet, HighlightOpen+"hydration"+HighlightClose) || !strings.Contains(h.Snippet, HighlightOpen+"levain"+HighlightClose) {
		t.Fatalf("snippet %q does not mark the query terms", h.Snippet)
	}
	n := e.Snapshot().Note(h.Path)
	lines := strings.Split(n.Body, "\n")
	first := lines[h.LineStart-n.BodyLine]
	if h.LineStart < n.BodyLine || h.LineEnd < h.LineStart || !strings.Contains(strings.ToLower(strings.Join(lines[h.LineStart-n.BodyLine:h.LineEnd-n.BodyLine+1], " ")), "hydration") {
		t.Fatalf("lines %d-%d (first %q) do not hold the match", h.LineStart, h.LineEnd, first)
	}
	if len(h.Snippet) > snippetChars+40 {
		t.Fatalf("snippet is %d bytes", len(h.Snippet))
	}
}

func TestBlockGranularity(t *testing.T) {
	e := testEngine(t)
	res := mustSearch(t, e, Request{Query: "fan-in results merged", Granularity: GranularityBlock, Limit: 5})
	if len(res.Hits) == 0 {
		t.Fatal("no block hits")
	}
	top := res.Hits[0]
	if top.Path != "Software/Concurrency Patterns.md" || top.Chunk < 0 {
		t.Fatalf("top block = %s chunk %d", top.Path, top.Chunk)
	}
	c := e.chunks[top.Note][top.Chunk]
	if top.LineStart != c.LineStart || top.LineEnd != c.LineEnd {
		t.Fatalf("block lines %d-%d, chunk lines %d-%d", top.LineStart, top.LineEnd, c.LineStart, c.LineEnd)
	}
	if !strings.Contains(strings.ToLower(c.Text(e.Snapshot().Notes[top.Note])), "fan-in") {
		t.Fatalf("top chunk does not contain the phrase: %q", c.Text(e.Snapshot().Notes[top.Note]))
	}
	seen := map[[2]int]bool{}
	for _, h := range res.Hits {
		k := [2]int{h.Note, h.Chunk}
		if seen[k] {
			t.Fatalf("chunk %v listed twice", k)
		}
		seen[k] = true
	}
}

func TestDeterministicAndConcurrent(t *testing.T) {
	e := testEngine(t)
	req := Request{Query: "goroutines channels bread", GraphBoost: true, Limit: 20}
	want := mustSearch(t, e, req)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.Search(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			if !slices.Equal(hitPaths(got), hitPaths(want)) {
				t.Errorf("concurrent search gave %q, want %q", hitPaths(got), hitPaths(want))
			}
		}()
	}
	wg.Wait()
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testEngine(t).Search(ctx, Request{Query: "bread"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFrontmatterFilterStringFormTags(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "list.md", "---\ntags: [recipe, bread]\naliases: [Loaf]\n---\nflour\n")
	write(t, dir, "comma.md", "---\ntags: recipe, bread\naliases: Loaf\n---\nflour\n")
	write(t, dir, "space.md", "---\ntags: \"#recipe soup\"\n---\nflour\n")
	write(t, dir, "other.md", "---\ntags: soup\n---\nflour\n")
	e, err := newEngine(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		filter map[string]any
		want   []string
	}{
		{map[string]any{"tags": "recipe"}, []string{"comma.md", "list.md", "space.md"}},
		{map[string]any{"tags": []any{"bread", "soup"}}, []string{"comma.md", "list.md", "other.md", "space.md"}},
		{map[string]any{"aliases": "loaf"}, []string{"comma.md", "list.md"}},
	} {
		got := hitPaths(mustSearch(t, e, Request{Query: "flour", Limit: 10, Frontmatter: tt.filter}))
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.filter, got, tt.want)
		}
	}
}
