package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestDataviewTool(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name  string
		query string
		check func(t *testing.T, out DataviewOutput)
	}{
		{"table sorted", "TABLE status, rating AS \"Rating\"\nFROM \"Cooking\"\nSORT rating DESC", func(t *testing.T, out DataviewOutput) {
			if out.Type != "table" || !slices.Equal(out.Columns, []string{"status", "Rating"}) || out.Total != 3 || out.Truncated {
				t.Fatalf("header = %+v", out)
			}
			got, _ := json.Marshal(out.Rows)
			want := `[{"path":"Cooking/Sourdough Bread.md","title":"Sourdough Bread","values":{"Rating":5,"status":"done"}},` +
				`{"path":"Cooking/Pasta Carbonara.md","title":"Pasta Carbonara","values":{"Rating":4,"status":"draft"}},` +
				`{"path":"Cooking/Knife Skills.md","title":"Knife Skills","values":{"Rating":null,"status":null}}]`
			if string(got) != want {
				t.Fatalf("rows = %s", got)
			}
		}},
		{"list from tag and links", `LIST FROM #project or [[Kubernetes]] WHERE file.name != "Home"`, func(t *testing.T, out DataviewOutput) {
			want := []string{"Daily/2026-02-01.md", "Projects/Crawler.md", "Projects/Log Pipeline.md", "Syntax/Wikilinks.md"}
			var got []string
			for _, r := range out.Rows {
				got = append(got, r.Path)
				if r.Values == nil || len(r.Values) != 0 {
					t.Fatalf("values = %#v, want {}", r.Values)
				}
			}
			if out.Type != "list" || len(out.Columns) != 0 || !slices.Equal(got, want) {
				t.Fatalf("out = %+v", out)
			}
		}},
		{"list with an expression", `LIST file.day FROM "Daily" WHERE file.day > date(2026-01-31)`, func(t *testing.T, out DataviewOutput) {
			if len(out.Rows) != 2 || out.Rows[0].Values["file.day"] != "2026-02-01" || out.Rows[1].Values["file.day"] != "2026-03-10" {
				t.Fatalf("rows = %+v", out.Rows)
			}
		}},
		{"frontmatter title and links", `TABLE WITHOUT ID file.inlinks AS links FROM "Syntax/Unicode NFD"`, func(t *testing.T, out DataviewOutput) {
			if len(out.Rows) != 1 || out.Rows[0].Title != "Unicode Normalisation" {
				t.Fatalf("rows = %+v", out.Rows)
			}
			if links, ok := out.Rows[0].Values["links"].([]any); !ok || len(links) != 0 {
				t.Fatalf("links = %#v", out.Rows[0].Values["links"])
			}
		}},
		{"warnings", `LIST FROM "cooking"`, func(t *testing.T, out DataviewOutput) {
			if len(out.Rows) != 0 || out.Total != 0 || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "no such folder") {
				t.Fatalf("out = %+v", out)
			}
		}},
		{"recent notes", `LIST WHERE file.mtime > date(today) - dur(7 days) LIMIT 1`, func(t *testing.T, out DataviewOutput) {
			if out.Total > 1 || out.Query == "" {
				t.Fatalf("out = %+v", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, decode[DataviewOutput](t, call(t, cs, "obsidian_dataview_query", map[string]any{"query": tt.query, "unknown": 1})))
		})
	}
}

func TestDataviewToolErrors(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"group by", map[string]any{"query": "TABLE status\nGROUP BY status"}, "GROUP BY is not supported (line 2, column 1)"},
		{"flatten", map[string]any{"query": "LIST FLATTEN tags"}, "FLATTEN is not supported (line 1, column 6)"},
		{"task", map[string]any{"query": "TASK"}, "TASK queries are not supported"},
		{"javascript", map[string]any{"query": "dv.pages('#x')"}, "JavaScript"},
		{"inline", map[string]any{"query": "= this.file.name"}, "inline DQL"},
		{"function", map[string]any{"query": "LIST WHERE regexmatch(\"x\", file.name)"}, "function regexmatch() is not supported"},
		{"ctime", map[string]any{"query": "TABLE file.ctime"}, "file.ctime is not available"},
		{"syntax", map[string]any{"query": "LIST WHERE status = "}, "expected a value, field or function but found the end of the query (line 1, column 21)"},
		{"every row fails", map[string]any{"query": `TABLE rating - 1 FROM "Daily"`}, "a column failed on every page"},
		{"missing outgoing note", map[string]any{"query": "LIST FROM outgoing([[Nope]])"}, "no such note"},
		{"blank", map[string]any{"query": "  "}, "the query is empty"},
		{"empty", map[string]any{"query": ""}, "query"},
		{"missing", map[string]any{}, "query"},
		{"too long", map[string]any{"query": "LIST " + strings.Repeat(" ", maxDataviewQuery)}, "query"},
		{"wrong type", map[string]any{"query": 5}, "query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_dataview_query", tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
}
