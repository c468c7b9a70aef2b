package tools

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/textsearch"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// hitLines renders a result as "path:line:column" per kept match.
func hitLines(out SearchTextOutput) []string {
	var got []string
	for _, n := range out.Notes {
		for _, m := range n.Matches {
			got = append(got, n.Path+":"+strconv.Itoa(m.Line)+":"+strconv.Itoa(m.Column))
		}
	}
	return got
}

func TestSearchTextTool(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name string
		args map[string]any
		want []string // path:line:column of the kept matches, in order
	}{
		{"phrase, case-insensitive", map[string]any{"query": "LEVAIN"}, []string{
			"Cooking/Sourdough Bread.md:15:17", "Cooking/Sourdough Bread.md:17:74", "Cooking/Sourdough Bread.md:21:96"}},
		{"case-sensitive", map[string]any{"query": "Levain", "case_sensitive": true}, nil},
		{"frontmatter is not searched", map[string]any{"query": "status: done"}, nil},
		{"body only: an alias in frontmatter is not a match", map[string]any{"query": "k8s", "folder": "Software"}, []string{"Software/Kubernetes.md:7:26"}},
		{"CRLF file lines", map[string]any{"query": "windows line endings"}, []string{"Syntax/CRLF Note.md:6:66"}},
		{"lines after malformed YAML", map[string]any{"query": "quasar"}, []string{"Syntax/Malformed YAML.md:11:4", "Syntax/Malformed YAML.md:13:51"}},
		{"code blocks are text", map[string]any{"query": "[[Fake Link In Code]]"}, []string{"Syntax/Code Fences.md:13:8", "Syntax/Code Fences.md:23:7"}},
		{"NFC query on an NFD file", map[string]any{"query": "café"}, []string{"Syntax/Unicode NFD.md:7:18"}},
		{"NFD query", map[string]any{"query": "nai\u0308ve"}, []string{"Syntax/Unicode NFD.md:7:27"}},
		{"CJK, column in characters", map[string]any{"query": "寿司"}, []string{"Languages/日本語メモ.md:8:4", "Languages/日本語メモ.md:10:14"}},
		{"skipped folders", map[string]any{"query": "zzskipme"}, nil},
		{"all terms on one line", map[string]any{"query": "channels goroutines", "mode": "all"}, []string{"Software/Go Concurrency.md:14:1"}},
		{"any term", map[string]any{"query": "select goroutines", "mode": "any", "folder": "Software", "max_matches_per_note": 2}, []string{
			"Software/Go Concurrency.md:8:4", "Software/Go Concurrency.md:10:96", "Software/Concurrency Patterns.md:10:187"}},
		{"regex", map[string]any{"query": `\bK8s\b|^#+ Pods`, "regex": true, "case_sensitive": true}, []string{
			"Software/Kubernetes.md:7:26", "Software/Kubernetes.md:9:1", "Syntax/Wikilinks.md:14:59"}},
		{"regex, case-insensitive", map[string]any{"query": `^## pods$`, "regex": true}, []string{"Software/Kubernetes.md:9:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", tt.args))
			if got := hitLines(out); !slices.Equal(got, tt.want) {
				t.Fatalf("matches %q, want %q\n%+v", got, tt.want, out)
			}
			if out.Notes == nil || out.ScannedNotes == 0 || out.MatchedNotes != len(out.Notes) {
				t.Fatalf("header %+v", out)
			}
		})
	}
}

func TestSearchTextOutput(t *testing.T) {
	cs := connect(t)
	out := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "the", "limit": 3, "max_matches_per_note": 1}))
	if out.Mode != "phrase" || out.Query != "the" || out.CaseSensitive || out.Regex || out.ScannedNotes != 43 {
		t.Fatalf("header %+v", out)
	}
	if len(out.Notes) != 3 || out.MatchedNotes <= 3 {
		t.Fatalf("%d notes of %d", len(out.Notes), out.MatchedNotes)
	}
	sum := 0
	for i, n := range out.Notes {
		if len(n.Matches) != 1 || n.Count < 1 || (i > 0 && n.Count > out.Notes[i-1].Count) {
			t.Fatalf("note %d: %+v", i, n)
		}
		if !strings.Contains(strings.ToLower(n.Matches[0].Text), "the") {
			t.Fatalf("text %q", n.Matches[0].Text)
		}
		sum += n.Count
	}
	if out.TotalMatches < sum {
		t.Fatalf("total_matches %d < %d", out.TotalMatches, sum)
	}
	folder := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "the", "folder": "Cooking"}))
	if folder.ScannedNotes != 3 {
		t.Fatalf("scanned %d notes in Cooking", folder.ScannedNotes)
	}
	m := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "levain"})).Notes[0]
	if m.Title != "Sourdough Bread" || m.Count != 3 || m.Matches[0].Text != "## Building the levain" || m.Matches[0].Page != 0 {
		t.Fatalf("note %+v", m)
	}
}

func TestSearchTextErrors(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing query", map[string]any{}, "query"},
		{"empty query", map[string]any{"query": ""}, "query"},
		{"blank query", map[string]any{"query": "  \t"}, "query is empty"},
		{"query too long", map[string]any{"query": strings.Repeat("q", 4097)}, "query"},
		{"bad mode", map[string]any{"query": "x", "mode": "fuzzy"}, "mode"},
		{"regex with mode all", map[string]any{"query": "x", "regex": true, "mode": "all"}, "regex"},
		{"invalid regex", map[string]any{"query": "(", "regex": true}, "invalid regex"},
		{"regex matching nothing", map[string]any{"query": "a*", "regex": true}, "empty string"},
		{"regex too long", map[string]any{"query": strings.Repeat("a", 1001), "regex": true}, "1000"},
		{"limit", map[string]any{"query": "x", "limit": 201}, "limit"},
		{"max_matches_per_note", map[string]any{"query": "x", "max_matches_per_note": 0}, "max_matches_per_note"},
		{"folder escaping the vault", map[string]any{"query": "x", "folder": "../"}, "folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_search_text", tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
}

// BenchmarkMetaTools times the metadata and text-search handlers without
// the MCP round trip.
func BenchmarkMetaTools(b *testing.B) {
	ctx := context.Background()
	e := benchEngine(b)
	snap := e.Snapshot()
	c := &metaCache{}
	d := c.get(e)
	start := time.Now()
	d.textIndex()
	d.vaultStats()
	d.frontmatterIndex().Build()
	b.Logf("%d notes; derived data built in %v", len(snap.Notes), time.Since(start))
	for _, bc := range []struct {
		name string
		run  func() error
	}{
		{"search_text/phrase", func() error {
			_, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: "memory safety"})
			return err
		}},
		{"search_text/phrase-common", func() error { _, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: "the"}); return err }},
		{"search_text/case-sensitive", func() error {
			_, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: "Windows", CaseSensitive: true})
			return err
		}},
		{"search_text/all", func() error {
			_, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: "process memory", Mode: "all"})
			return err
		}},
		{"search_text/any", func() error {
			_, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: "kernel heap stack", Mode: "any"})
			return err
		}},
		{"search_text/regex", func() error {
			_, err := searchText(ctx, d.textIndex(), SearchTextInput{Query: `CVE-\d{4}-\d+`, Regex: true})
			return err
		}},
		{"list_tags", func() error { _, err := listTags(d, ListTagsInput{}); return err }},
		{"list_tags/folder", func() error { _, err := listTags(d, ListTagsInput{Folder: "a"}); return err }},
		{"frontmatter_search", func() error {
			_, err := frontmatterSearch(ctx, d.frontmatterIndex(), FrontmatterSearchInput{Key: "tags", Contains: "security"})
			return err
		}},
		{"stats", func() error { d.vaultStats().render(10, time.Now()); return nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := bc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSearchTextPDFs(t *testing.T) {
	cs := connectTo(t, New(engineAt(t, "../testdata/vault", time.Time{}, vault.Options{PDFs: true}), Options{Version: "test"}))
	out := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "paper, page two"}))
	if len(out.Notes) != 1 || out.Notes[0].Path != "Attachments/paper.pdf" || out.Notes[0].Matches[0].Page != 2 {
		t.Fatalf("pdf match %+v", out)
	}
	stats := decode[StatsOutput](t, call(t, cs, "obsidian_stats", map[string]any{}))
	if stats.PDFs != 1 || stats.Notes != 43 || stats.Attachments != 2 {
		t.Fatalf("stats with PDFs %+v", stats)
	}
}

func TestSearchTextEdgeCases(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("lorem ipsum ", 60) + "NEEDLE" + strings.Repeat(" dolor sit", 60)
	files := map[string]string{
		"kelvin.md": "---\ntitle: K\n---\nThe \u212Aelvin sign is not an ASCII k.\n",
		"long.md":   "first\n" + long + "\n",
		"many.md":   strings.Repeat("needle\n", 30),
		"last.md":   "no newline at the end: needle",
	}
	for name, body := range files {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectTo(t, New(engineAt(t, dir, time.Time{}, vault.Options{}), Options{Version: "test"}))
	// (?i) k matches the Kelvin sign: the literal filter must not drop the note.
	out := decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "kelvin sign", "regex": true}))
	if got := hitLines(out); !slices.Equal(got, []string{"kelvin.md:4:5"}) {
		t.Fatalf("kelvin regex %q", got)
	}
	out = decode[SearchTextOutput](t, call(t, cs, "obsidian_search_text", map[string]any{"query": "needle", "max_matches_per_note": 2}))
	if got := hitLines(out); !slices.Equal(got, []string{"many.md:1:1", "many.md:2:1", "last.md:1:24", "long.md:2:721"}) {
		t.Fatalf("needle %q", got)
	}
	if out.TotalMatches != 32 || out.Notes[0].Count != 30 {
		t.Fatalf("counts %+v", out)
	}
	w := out.Notes[2].Matches[0].Text
	if !strings.HasPrefix(w, "…") || !strings.HasSuffix(w, "…") || !strings.Contains(w, "NEEDLE") || utf8.RuneCountInString(w) > textsearch.WindowRunes+2 {
		t.Fatalf("window %q", w)
	}
}
