package tools

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// tagsOf returns the listed tags in order.
func tagsOf(out ListTagsOutput) []string {
	var tags []string
	for _, t := range out.Tags {
		tags = append(tags, t.Tag)
	}
	return tags
}

func TestListTagsTool(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name  string
		args  map[string]any
		total int
		first []string // the first tags, in order
	}{
		// Counts from testdata/MANIFEST.md, nested tags rolled up.
		{"by count then name", map[string]any{}, 44, []string{"syntax-test", "programming", "cooking", "daily", "science", "gardening"}},
		{"subtree, # and case ignored", map[string]any{"prefix": "#Science"}, 4, []string{"science", "science/biology", "science/geology", "science/physics"}},
		{"prefix is a tag, not a string prefix", map[string]any{"prefix": "sci"}, 0, nil},
		{"deep subtree", map[string]any{"prefix": "area/sub/"}, 2, []string{"area/sub", "area/sub/leaf"}},
		{"min_count", map[string]any{"min_count": 3}, 5, []string{"syntax-test", "programming", "cooking", "daily", "science"}},
		{"by name with limit", map[string]any{"sort": "name", "limit": 3}, 44, []string{"archive", "area", "area/sub"}},
		{"folder", map[string]any{"folder": "cooking/"}, 3, []string{"cooking", "recipe", "cooking/baking"}},
		{"cjk", map[string]any{"prefix": "日本語"}, 1, []string{"日本語"}},
		{"unknown arguments ignored", map[string]any{"prefix": "daily", "include_counts": true}, 1, []string{"daily"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[ListTagsOutput](t, call(t, cs, "obsidian_list_tags", tt.args))
			got := tagsOf(out)
			if out.Total != tt.total || len(got) < len(tt.first) || !slices.Equal(got[:len(tt.first)], tt.first) {
				t.Fatalf("total %d tags %q, want total %d starting %q", out.Total, got, tt.total, tt.first)
			}
			if out.Tags == nil {
				t.Fatal("tags must be [] not null")
			}
		})
	}
}

func TestListTagsCounts(t *testing.T) {
	cs := connect(t)
	byTag := map[string]ListTagEntry{}
	for _, e := range decode[ListTagsOutput](t, call(t, cs, "obsidian_list_tags", map[string]any{"limit": 2000})).Tags {
		byTag[e.Tag] = e
	}
	want := map[string]ListTagEntry{
		// Sourdough (cooking/baking), Carbonara and Knife Skills (cooking), all frontmatter.
		"cooking": {Tag: "cooking", Count: 3, DirectCount: 2, FrontmatterCount: 3, ChildrenCount: 1},
		// Only nested tags: science/biology, /geology, /physics.
		"science": {Tag: "science", Count: 3, FrontmatterCount: 3, ChildrenCount: 3},
		// Garden Log in frontmatter, Tomatoes inline (#gardening/vegetables).
		"gardening":            {Tag: "gardening", Count: 2, DirectCount: 1, FrontmatterCount: 1, InlineCount: 1, ChildrenCount: 1},
		"gardening/vegetables": {Tag: "gardening/vegetables", Count: 1, DirectCount: 1, InlineCount: 1},
		"area":                 {Tag: "area", Count: 1, InlineCount: 1, ChildrenCount: 1},
		"area/sub/leaf":        {Tag: "area/sub/leaf", Count: 1, DirectCount: 1, InlineCount: 1},
		"nospace":              {Tag: "nospace", Count: 1, DirectCount: 1, InlineCount: 1}, // #NoSpace, folded
		"hash-prefixed":        {Tag: "hash-prefixed", Count: 1, DirectCount: 1, FrontmatterCount: 1},
		"syntax-test":          {Tag: "syntax-test", Count: 5, DirectCount: 5, FrontmatterCount: 5},
		"programming":          {Tag: "programming", Count: 4, DirectCount: 2, FrontmatterCount: 4, ChildrenCount: 2},
		"中文":                   {Tag: "中文", Count: 1, DirectCount: 1, FrontmatterCount: 1},
	}
	for tag, w := range want {
		if got := byTag[tag]; got != w {
			t.Errorf("%s = %+v, want %+v", tag, got, w)
		}
	}
	for _, absent := range []string{"zzskipme-tag", "fake-tag", "not-a-tag", "fenced-not-a-tag", "anchor", "123", "39", "NoSpace"} {
		if _, ok := byTag[absent]; ok {
			t.Errorf("%q must not be a tag", absent)
		}
	}
	for tag, e := range byTag {
		if e.FrontmatterCount+e.InlineCount != e.Count || e.DirectCount > e.Count || strings.HasPrefix(tag, "#") {
			t.Errorf("inconsistent %+v", e)
		}
	}
}

func TestMetaToolErrors(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"obsidian_list_tags", map[string]any{"limit": 0}, "limit"},
		{"obsidian_list_tags", map[string]any{"limit": 2001}, "limit"},
		{"obsidian_list_tags", map[string]any{"min_count": 0}, "min_count"},
		{"obsidian_list_tags", map[string]any{"sort": "size"}, "sort"},
		{"obsidian_list_tags", map[string]any{"folder": "../.."}, "folder"},
		{"obsidian_list_tags", map[string]any{"prefix": strings.Repeat("p", 257)}, "prefix"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status"}, "exactly one of exists, equals or contains"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "exists": true, "equals": "done"}, "exactly one"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "exists": false}, "exists"},
		{"obsidian_frontmatter_search", map[string]any{"equals": "done"}, "key"},
		{"obsidian_frontmatter_search", map[string]any{"key": "  ", "equals": "done"}, "key is empty"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "equals": map[string]any{"a": 1}}, "equals"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "equals": []any{"a"}}, "equals"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "contains": " "}, "contains is empty"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "exists": true, "cursor": "!!"}, "invalid cursor"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "exists": true, "limit": 1001}, "limit"},
		{"obsidian_frontmatter_search", map[string]any{"key": "status", "exists": true, "folder": "/../x"}, "folder"},
		{"obsidian_stats", map[string]any{"top_tags": 51}, "top_tags"},
	} {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
}

func matchPaths(out FrontmatterSearchOutput) []string {
	var paths []string
	for _, m := range out.Matches {
		paths = append(paths, m.Path)
	}
	return paths
}

func TestFrontmatterSearchTool(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"exists", map[string]any{"key": "status", "exists": true}, []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md",
			"Misc/Frontmatter Only.md", "Projects/Crawler.md", "Projects/Log Pipeline.md", "Software/Rust Ownership.md"}},
		{"equals, key and value case-insensitive", map[string]any{"key": "STATUS", "equals": " DONE"}, []string{"Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{"number by value", map[string]any{"key": "rating", "equals": 5}, []string{"Cooking/Sourdough Bread.md"}},
		{"numeric string", map[string]any{"key": "rating", "equals": "4.0"}, []string{"Cooking/Pasta Carbonara.md"}},
		{"list membership, # ignored for tags", map[string]any{"key": "tags", "equals": "#recipe"}, []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{"scalar tags value", map[string]any{"key": "tags", "equals": "cooking"}, []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md"}},
		{"tags written as a comma string compare as a list", map[string]any{"key": "tags", "equals": "devops"}, []string{"Software/Kubernetes.md"}},
		{"tags written space-separated", map[string]any{"key": "tags", "equals": "databases"}, []string{"Software/Database Indexing.md"}},
		{"alias key", map[string]any{"key": "alias", "equals": "k8s"}, []string{"Software/Kubernetes.md"}},
		{"contains on parsed tags", map[string]any{"key": "tags", "contains": "#infra"}, []string{"Software/Kubernetes.md"}},
		{"contains", map[string]any{"key": "status", "contains": "CT"}, []string{"Projects/Crawler.md"}},
		{"contains in a list", map[string]any{"key": "aliases", "contains": "bread"}, []string{"Cooking/Sourdough Bread.md"}},
		{"contains on a date string", map[string]any{"key": "date", "contains": "2026-0"}, []string{"Daily/2026-01-15.md", "Daily/2026-02-01.md", "Daily/2026-03-10.md"}},
		{"contains a number", map[string]any{"key": "rating", "contains": 5}, []string{"Cooking/Sourdough Bread.md"}},
		{"folder", map[string]any{"key": "status", "exists": true, "folder": "Projects"}, []string{"Projects/Crawler.md", "Projects/Log Pipeline.md"}},
		{"malformed YAML has no frontmatter", map[string]any{"key": "title", "exists": true}, []string{"Syntax/Unicode NFD.md"}},
		{"no match is not an error", map[string]any{"key": "nope", "exists": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", tt.args))
			if got := matchPaths(out); !slices.Equal(got, tt.want) || out.Total != len(tt.want) || out.NextCursor != "" || out.Matches == nil {
				t.Fatalf("matches %q total %d cursor %q, want %q", got, out.Total, out.NextCursor, tt.want)
			}
		})
	}
	out := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": "Rating", "equals": 5}))
	if m := out.Matches[0]; out.Key != "Rating" || m.Value != 5.0 || m.Title != "Sourdough Bread" || m.Mtime == "" {
		t.Fatalf("match %+v", out)
	}
	out = decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": "tags", "equals": "devops"}))
	if out.Matches[0].Value != "devops, infrastructure" {
		t.Fatalf("the value is returned as written: %#v", out.Matches[0].Value)
	}
	out = decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": "aliases", "contains": "bread"}))
	if v, ok := out.Matches[0].Value.([]any); !ok || len(v) != 2 {
		t.Fatalf("a list value is returned whole: %#v", out.Matches[0].Value)
	}
}

func TestFrontmatterSearchPaging(t *testing.T) {
	cs := connect(t)
	args := map[string]any{"key": "status", "exists": true, "limit": 4}
	first := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", args))
	if len(first.Matches) != 4 || first.Total != 6 || first.NextCursor == "" {
		t.Fatalf("first page %+v", first)
	}
	args["cursor"] = first.NextCursor
	second := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", args))
	if got := matchPaths(second); !slices.Equal(got, []string{"Projects/Log Pipeline.md", "Software/Rust Ownership.md"}) || second.NextCursor != "" || second.Total != 6 {
		t.Fatalf("second page %q cursor %q", got, second.NextCursor)
	}
	other := call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": "status", "equals": "done", "cursor": first.NextCursor})
	if !other.IsError || !strings.Contains(text(other), "different query") {
		t.Fatalf("a cursor of another query: %q", text(other))
	}
}

func TestStatsTool(t *testing.T) {
	out := decode[StatsOutput](t, call(t, connect(t), "obsidian_stats", map[string]any{"top_tags": 3}))
	// Expectations from testdata/MANIFEST.md: 41 notes; 4 without
	// frontmatter plus Malformed YAML; two unresolved links (one in a
	// property); 4 notes with no edge at all; 31 linked-to notes of which
	// 12 link on. Plus the two memories of Memory/: frontmatter, no links,
	// no tags.
	type counts struct{ notes, pdfs, atts, fm, orphans, deadEnds, broken, targets, tags, warnings int }
	got := counts{out.Notes, out.PDFs, out.Attachments, out.NotesWithFrontmatter, out.Orphans, out.DeadEnds,
		out.BrokenLinks, out.UnresolvedTargets, out.TotalTags, out.Warnings}
	if want := (counts{43, 0, 2, 38, 6, 19, 2, 2, 44, 1}); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	if out.AttachmentBytes != 69+884 { // diagram.png and paper.pdf
		t.Errorf("attachment_bytes %d", out.AttachmentBytes)
	}
	if out.Bytes <= 0 || out.Words < 1000 || out.OldestMtime == "" || out.NewestMtime < out.OldestMtime || out.LoadedAt == "" {
		t.Errorf("sizes and times %+v", out)
	}
	if !slices.Equal(out.Signals, []string{"tfidf"}) || out.Index.Persistent || out.Index.Chunks == 0 || out.Embeddings != nil || out.SignalErrors != nil {
		t.Errorf("engine %+v %+v %+v", out.Signals, out.Index, out.Embeddings)
	}
	if len(out.TopTags) != 3 || out.TopTags[0] != (StatsTag{Tag: "syntax-test", Count: 5}) || out.TopTags[1] != (StatsTag{Tag: "programming", Count: 4}) {
		t.Errorf("top_tags %+v", out.TopTags)
	}
	if out.RecentlyModified7d < 0 || out.RecentlyModified7d > out.Notes {
		t.Errorf("recently_modified_7d %d", out.RecentlyModified7d)
	}
}

// TestMetaCacheFollowsTheEngine: derived data is per engine, so a swapped
// engine (after a write) is never answered from the old one's cache.
func TestMetaCacheFollowsTheEngine(t *testing.T) {
	srv := New(testEngine(t), Options{Version: "test"})
	cs := connectTo(t, srv)
	if out := decode[StatsOutput](t, call(t, cs, "obsidian_stats", map[string]any{})); out.Index.Persistent {
		t.Fatal("TF-IDF engine reported a persistent index")
	}
	srv.Swap(indexedEngine(t))
	out := decode[StatsOutput](t, call(t, cs, "obsidian_stats", map[string]any{}))
	if !out.Index.Persistent || out.Embeddings == nil || out.Embeddings.Model != "toy" || out.Embeddings.Vectors == 0 ||
		!slices.Contains(out.Signals, "bm25") || !slices.Contains(out.Signals, "embeddings") {
		t.Fatalf("after the swap: %+v", out)
	}
	if len(out.TopTags) != defaultTopTags {
		t.Fatalf("top_tags default: %d", len(out.TopTags))
	}
}

// TestFrontmatterSearchKeySpellings: a note spelling a key two ways
// answers like filter_frontmatter: the exact spelling first, else the
// first case-insensitive match in sorted order.
func TestFrontmatterSearchKeySpellings(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/a.md", []byte("---\nStatus: upper\nstatus: lower\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/b.md", []byte("---\nSTATUS: shout\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connectTo(t, New(engineAt(t, dir, time.Time{}, vault.Options{}), Options{Version: "test"}))
	for key, want := range map[string][]any{
		"status": {"lower", "shout"},
		"Status": {"upper", "shout"},
		"sTaTuS": {"upper", "shout"}, // "Status" sorts before "status"
	} {
		out := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": key, "exists": true}))
		var got []any
		for _, m := range out.Matches {
			got = append(got, m.Value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("key %q: values %v, want %v", key, got, want)
		}
	}
}

// TestMetaToolsConcurrent: the per-engine cache is built once under
// concurrent first calls (run with -race).
func TestMetaToolsConcurrent(t *testing.T) {
	cs := connectTo(t, New(testEngine(t), Options{Version: "test"}))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_list_tags", map[string]any{}},
		{"obsidian_stats", map[string]any{}},
		{"obsidian_frontmatter_search", map[string]any{"key": "tags", "equals": "recipe"}},
		{"obsidian_search_text", map[string]any{"query": "levain"}},
	}
	var wg sync.WaitGroup
	for range 4 {
		for _, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				switch {
				case err != nil:
					t.Errorf("%s: %v", c.tool, err)
				case res.IsError:
					t.Errorf("%s: %s", c.tool, text(res))
				}
			}()
		}
	}
	wg.Wait()
}
