package tools

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func paths(items []NoteItem) []string {
	out := make([]string, len(items))
	for i, n := range items {
		out[i] = n.Path
	}
	return out
}

func TestListNotesFilters(t *testing.T) {
	cs := connect(t)
	all := fixtureNotes(t)
	tests := []struct {
		name  string
		args  map[string]any
		want  []string // exact paths in order; nil: check only
		check func(t *testing.T, out ListNotesOutput)
	}{
		{name: "everything by path", args: map[string]any{"sort": "path"}, want: all},
		{name: "path descending", args: map[string]any{"sort": "path", "order": "desc"},
			check: func(t *testing.T, out ListNotesOutput) {
				want := slices.Clone(all)
				slices.Reverse(want)
				if !slices.Equal(paths(out.Notes), want) {
					t.Fatalf("got %q", paths(out.Notes))
				}
			}},
		{name: "folder", args: map[string]any{"folder": "Cooking/", "sort": "path"},
			want: []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{name: "folder is case-insensitive", args: map[string]any{"folder": "daily", "sort": "path"},
			want: []string{"Daily/2026-01-15.md", "Daily/2026-02-01.md", "Daily/2026-03-10.md"}},
		{name: "nested folder", args: map[string]any{"folder": "Archive/2019"}, want: []string{"Archive/2019/Old Notes/Ancient.md"}},
		{name: "tag with # matches nested tags", args: map[string]any{"tag": "#Cooking", "folder": "Cooking", "sort": "path"},
			want: []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{name: "nested tag", args: map[string]any{"tag": "cooking/baking"}, want: []string{"Cooking/Sourdough Bread.md"}},
		{name: "deep nested tag parent", args: map[string]any{"tag": "area/sub"}, want: []string{"Syntax/Tags.md"}},
		{name: "tag prefix is not a parent", args: map[string]any{"tag": "cook"}, want: []string{}},
		{name: "frontmatter filter", args: map[string]any{"filter_frontmatter": map[string]any{"tags": "recipe", "rating": "5"}},
			want: []string{"Cooking/Sourdough Bread.md"}},
		{name: "frontmatter any of", args: map[string]any{"filter_frontmatter": map[string]any{"status": []any{"done", "EMPTY"}}, "sort": "path"},
			check: func(t *testing.T, out ListNotesOutput) {
				if !slices.Contains(paths(out.Notes), "Misc/Frontmatter Only.md") || !slices.Contains(paths(out.Notes), "Cooking/Sourdough Bread.md") {
					t.Fatalf("got %q", paths(out.Notes))
				}
			}},
		{name: "title sort", args: map[string]any{"sort": "title", "folder": "Syntax"},
			check: func(t *testing.T, out ListNotesOutput) {
				titles := make([]string, len(out.Notes))
				for i, n := range out.Notes {
					titles[i] = strings.ToLower(n.Title)
				}
				if !slices.IsSorted(titles) || len(titles) != 10 || out.Notes[len(titles)-1].Title != "Wikilinks" {
					t.Fatalf("titles %q", titles)
				}
			}},
		{name: "title sort descending", args: map[string]any{"sort": "title", "order": "desc", "folder": "Cooking"},
			want: []string{"Cooking/Sourdough Bread.md", "Cooking/Pasta Carbonara.md", "Cooking/Knife Skills.md"}},
		{name: "item shape", args: map[string]any{"folder": "Cooking", "tag": "cooking/baking"},
			check: func(t *testing.T, out ListNotesOutput) {
				n := out.Notes[0]
				if n.Title != "Sourdough Bread" || n.Kind != "md" || n.Size <= 0 || n.Frontmatter["status"] != "done" ||
					!slices.Equal(n.Tags, []string{"cooking/baking", "recipe"}) || n.AgeDays < 0 {
					t.Fatalf("item %+v", n)
				}
				if _, err := time.Parse(time.RFC3339, n.Mtime); err != nil {
					t.Fatalf("mtime %q: %v", n.Mtime, err)
				}
			}},
		{name: "no frontmatter is an empty object", args: map[string]any{"folder": "Misc", "sort": "path", "order": "desc"},
			check: func(t *testing.T, out ListNotesOutput) {
				if out.Notes[0].Path != "Misc/Orphan.md" || out.Notes[0].Frontmatter == nil || len(out.Notes[0].Tags) != 0 {
					t.Fatalf("%+v", out.Notes[0])
				}
			}},
		{name: "since_date alias, far future", args: map[string]any{"since_date": "2999-01-01"}, want: []string{}},
		{name: "modified_before far past", args: map[string]any{"modified_before": "1990-01-01T00:00:00Z"}, want: []string{}},
		{name: "unknown arguments are ignored", args: map[string]any{"folder": "Music", "bogus": 1}, want: []string{"Music/Guitar Chords.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", tt.args))
			if tt.want != nil && (!slices.Equal(paths(out.Notes), tt.want) || out.Total != len(tt.want)) {
				t.Fatalf("got %d %q, want %q", out.Total, paths(out.Notes), tt.want)
			}
			if out.NextCursor != "" {
				t.Fatalf("next_cursor %q on a single page", out.NextCursor)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

func TestListNotesErrors(t *testing.T) {
	cs := connect(t)
	first := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"limit": 2, "sort": "path"}))
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad date", map[string]any{"modified_since": "last tuesday"}, "modified_since"},
		{"bad before", map[string]any{"modified_before": "2026-13-45"}, "modified_before"},
		{"bad since_date", map[string]any{"since_date": "soon"}, "modified_since"},
		{"empty window", map[string]any{"modified_since": "2026-03-10", "modified_before": "2026-03-01"}, "must be before"},
		{"bad sort", map[string]any{"sort": "size"}, "sort"},
		{"bad order", map[string]any{"order": "up"}, "order"},
		{"limit too big", map[string]any{"limit": 501}, "limit"},
		{"limit zero", map[string]any{"limit": 0}, "limit"},
		{"folder escaping", map[string]any{"folder": "../x"}, "folder"},
		{"bad filter", map[string]any{"filter_frontmatter": map[string]any{"a": map[string]any{"b": 1}}}, "filter_frontmatter"},
		{"garbage cursor", map[string]any{"cursor": "!!!"}, "cursor"},
		{"cursor of another listing", map[string]any{"limit": 2, "sort": "title", "cursor": first.NextCursor}, "cursor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_list_notes", tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
}

func TestListNotesPaging(t *testing.T) {
	cs := connect(t)
	for _, args := range []map[string]any{
		{"sort": "path"},
		{"sort": "title", "order": "desc"},
		{"sort": "mtime"},
		{"sort": "path", "folder": "Syntax", "tag": "syntax-test"},
	} {
		full := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", args))
		var got []string
		cursor, pages := "", 0
		for {
			a := map[string]any{"limit": 3}
			for k, v := range args {
				a[k] = v
			}
			if cursor != "" {
				a["cursor"] = cursor
			}
			page := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", a))
			if page.Total != full.Total || len(page.Notes) > 3 {
				t.Fatalf("%v: page total %d (full %d), %d notes", args, page.Total, full.Total, len(page.Notes))
			}
			got = append(got, paths(page.Notes)...)
			pages++
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, paths(full.Notes)) || pages != (full.Total+2)/3 {
			t.Fatalf("%v: %d pages gave %q, want %q", args, pages, got, paths(full.Notes))
		}
	}
}

// mtimeVault is a copy of the fixture whose notes have known modification
// times: note i (in path order) is i hours older than base.
func mtimeVault(t *testing.T, base time.Time) (string, []string) {
	t.Helper()
	dir := vaulttest.Copy(t, "../testdata/vault")
	all := fixtureNotes(t)
	for i, p := range all {
		touch(t, dir, p, base.Add(-time.Duration(i)*time.Hour))
	}
	return dir, all
}

func TestListNotesByTime(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	base := now.Add(-30 * time.Minute)
	dir, all := mtimeVault(t, base)
	cs := connectTo(t, New(engineAt(t, dir, now, vault.Options{}), Options{}))

	out := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"limit": 500}))
	if !slices.Equal(paths(out.Notes), all) {
		t.Fatalf("default order (mtime, newest first) = %q", paths(out.Notes))
	}
	last := out.Notes[len(out.Notes)-1]
	if out.Notes[0].Mtime != base.Format(time.RFC3339) || out.Notes[0].AgeDays != 0 || last.AgeDays != (len(all)-1)/24 {
		t.Fatalf("first %+v last %+v", out.Notes[0], last)
	}
	asc := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"order": "asc", "limit": 1}))
	if asc.Notes[0].Path != all[len(all)-1] || asc.Total != len(all) || asc.NextCursor == "" {
		t.Fatalf("oldest first = %+v", asc)
	}
	// A window: notes 2..4 (2, 3 and 4 hours before base).
	win := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{
		"modified_since": base.Add(-4 * time.Hour).Format(time.RFC3339), "modified_before": base.Add(-time.Hour - time.Minute).Format(time.RFC3339)}))
	if !slices.Equal(paths(win.Notes), all[2:5]) {
		t.Fatalf("window = %q, want %q", paths(win.Notes), all[2:5])
	}
	// A date is midnight: notes modified on 2026-03-10 are the first 12.
	day := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"modified_since": "2026-03-10", "limit": 500}))
	if day.Total != 12 {
		t.Fatalf("since 2026-03-10: %d notes", day.Total)
	}
	before := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"modified_before": "2026-03-10", "limit": 500}))
	if before.Total != len(all)-12 {
		t.Fatalf("before 2026-03-10: %d notes", before.Total)
	}
}

func TestListNotesPDFs(t *testing.T) {
	e := engineAt(t, vaulttest.Copy(t, "../testdata/vault"), time.Now(), vault.Options{PDFs: true})
	cs := connectTo(t, New(e, Options{}))
	md := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"folder": "Attachments"}))
	if md.Total != 0 {
		t.Fatalf("PDFs listed by default: %+v", md.Notes)
	}
	pdf := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"folder": "Attachments", "include_pdfs": true}))
	if pdf.Total != 1 || pdf.Notes[0].Path != "Attachments/paper.pdf" || pdf.Notes[0].Kind != "pdf" {
		t.Fatalf("include_pdfs: %+v", pdf.Notes)
	}
}

func TestRecentEdits(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	dir := vaulttest.Copy(t, "../testdata/vault")
	all := fixtureNotes(t)
	for _, p := range all {
		touch(t, dir, p, now.AddDate(0, 0, -30))
	}
	touch(t, dir, "Projects/Roadmap.md", now.Add(-5*time.Minute))
	touch(t, dir, "Cooking/Pasta Carbonara.md", now.Add(-30*time.Minute))
	touch(t, dir, "Projects/Crawler.md", now.Add(-2*time.Hour))
	touch(t, dir, "Home.md", now.AddDate(0, 0, -2))
	cs := connectTo(t, New(engineAt(t, dir, now, vault.Options{}), Options{}))
	tests := []struct {
		name  string
		args  map[string]any
		want  []string
		total int
	}{
		{"last hour", map[string]any{"since_minutes": 60}, []string{"Projects/Roadmap.md", "Cooking/Pasta Carbonara.md"}, 2},
		{"last 3 hours", map[string]any{"since_minutes": 180}, []string{"Projects/Roadmap.md", "Cooking/Pasta Carbonara.md", "Projects/Crawler.md"}, 3},
		{"folder", map[string]any{"since_minutes": 180, "folder": "Projects"}, []string{"Projects/Roadmap.md", "Projects/Crawler.md"}, 2},
		{"limit", map[string]any{"since_minutes": 180, "limit": 1}, []string{"Projects/Roadmap.md"}, 3},
		{"since a time", map[string]any{"since": "2026-03-10T11:00:00Z"}, []string{"Projects/Roadmap.md", "Cooking/Pasta Carbonara.md"}, 2},
		{"since a date", map[string]any{"since": "2026-03-08"}, []string{"Projects/Roadmap.md", "Cooking/Pasta Carbonara.md", "Projects/Crawler.md", "Home.md"}, 4},
		{"no window: newest", map[string]any{"limit": 4}, []string{"Projects/Roadmap.md", "Cooking/Pasta Carbonara.md", "Projects/Crawler.md", "Home.md"}, len(all)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[RecentEditsOutput](t, call(t, cs, "obsidian_get_recent_edits", tt.args))
			if !slices.Equal(paths(out.Notes), tt.want) || out.Total != tt.total {
				t.Fatalf("got %d %q, want %d %q", out.Total, paths(out.Notes), tt.total, tt.want)
			}
		})
	}
	out := decode[RecentEditsOutput](t, call(t, cs, "obsidian_get_recent_edits", map[string]any{"since_minutes": 60}))
	if out.Since != "2026-03-10T11:00:00Z" || out.Notes[0].Mtime != "2026-03-10T11:55:00Z" || out.Notes[0].Title != "Roadmap" {
		t.Fatalf("output %+v", out)
	}
	if def := decode[RecentEditsOutput](t, call(t, cs, "obsidian_get_recent_edits", map[string]any{})); len(def.Notes) != 20 || def.Since != "" {
		t.Fatalf("default limit: %d notes, since %q", len(def.Notes), def.Since)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"since_minutes": 5, "since": "2026-03-01"}, "not both"},
		{map[string]any{"since_minutes": -5}, "since_minutes"},
		{map[string]any{"since_minutes": 1 << 40}, "since_minutes"},
		{map[string]any{"since": "yesterday-ish"}, "since"},
		{map[string]any{"limit": 201}, "limit"},
		{map[string]any{"folder": "../../etc"}, "folder"},
	} {
		if res := call(t, cs, "obsidian_get_recent_edits", tt.args); !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%v: IsError=%v %q, want %q", tt.args, res.IsError, text(res), tt.want)
		}
	}
}

func TestListNotesConcurrentWithSwap(t *testing.T) {
	srv := New(testEngine(t), Options{})
	cs := connectTo(t, srv)
	other := engineAt(t, vaulttest.Copy(t, "../testdata/vault"), time.Now(), vault.Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			if i%2 == 0 {
				srv.Swap(other)
			} else {
				srv.Swap(testEngine(t))
			}
		}
	}()
	for range 20 {
		for _, sort := range []string{"mtime", "title", "path"} {
			out := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"sort": sort, "tag": "daily"}))
			if out.Total != 3 {
				t.Fatalf("%s: %d daily notes", sort, out.Total)
			}
		}
	}
	<-done
}
