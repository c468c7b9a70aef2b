package dataview

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

var (
	fixtureOnce  sync.Once
	fixtureSnap  *vault.Snapshot
	fixtureGraph *graph.Graph
	fixtureErr   error
)

// testNow is the pinned clock: 15 March 2026, noon, one hour east of UTC.
var testNow = time.Date(2026, 3, 15, 12, 0, 0, 0, time.FixedZone("CET", 3600))

func fixture(t testing.TB) (*vault.Snapshot, *graph.Graph) {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureSnap, fixtureErr = vault.Load(context.Background(), "../testdata/vault", vault.Options{})
		if fixtureErr == nil {
			fixtureGraph = graph.New(fixtureSnap)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureSnap, fixtureGraph
}

func runQuery(t testing.TB, snap *vault.Snapshot, g *graph.Graph, query string) (*Result, error) {
	t.Helper()
	q, err := Parse(query)
	if err != nil {
		t.Fatalf("Parse(%q): %v", query, err)
	}
	return q.Run(context.Background(), snap, g, testNow)
}

func rowPaths(res *Result) []string {
	out := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r.Path
	}
	return out
}

func TestRunFixture(t *testing.T) {
	snap, g := fixture(t)
	cooking := []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}
	tests := []struct {
		query string
		want  []string // paths in order (nil: check count)
		count int
		warn  string
	}{
		{query: "LIST", count: 43},
		{query: `LIST FROM "Cooking"`, want: cooking},
		{query: `LIST FROM "Cooking/"`, want: cooking},
		{query: `LIST FROM "Cooking/Sourdough Bread"`, want: []string{"Cooking/Sourdough Bread.md"}},
		{query: `LIST FROM "Cooking/Sourdough Bread.md"`, want: []string{"Cooking/Sourdough Bread.md"}},
		{query: `LIST FROM "Archive"`, want: []string{"Archive/2019/Old Notes/Ancient.md", "Archive/Ideas.md", "Archive/Old Plans.md"}},
		{query: `LIST FROM "cooking"`, want: []string{}, warn: "no such folder or note"},
		{query: `LIST FROM "Cook"`, want: []string{}, warn: "no such folder"},
		{query: `LIST FROM #cooking`, want: cooking},
		{query: `LIST FROM #COOKING/baking`, want: []string{"Cooking/Sourdough Bread.md"}},
		{query: `LIST FROM #area`, want: []string{"Syntax/Tags.md"}},
		{query: `LIST FROM #hash-prefixed`, want: []string{"Syntax/Tags.md"}},
		{query: `LIST FROM #zzskipme-tag`, want: []string{}},
		{query: `LIST FROM [[Kubernetes]]`, want: []string{"Daily/2026-02-01.md", "Home.md", "Syntax/Wikilinks.md"}},
		{query: `LIST FROM [[K8s]]`, want: []string{"Daily/2026-02-01.md", "Home.md", "Syntax/Wikilinks.md"}},
		{query: `LIST FROM outgoing([[Crawler]])`, want: []string{"Software/Concurrency Patterns.md", "Software/Go Concurrency.md"}},
		{query: `LIST FROM [[Nonexistent Note]]`, want: []string{"Syntax/Wikilinks.md"}, warn: "resolves to no note"},
		{query: `LIST FROM [[diagram.png]]`, want: []string{"Syntax/Embeds.md", "Syntax/Wikilinks.md"}},
		{query: `LIST FROM "Projects" and -#project`, want: []string{"Projects/Ideas.md", "Projects/Roadmap.md"}},
		{query: `LIST FROM #recipe or #project`, want: []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md", "Projects/Crawler.md", "Projects/Log Pipeline.md"}},
		{query: `LIST FROM (#recipe or #project) and !"Projects"`, want: []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{query: `LIST FROM -"Syntax" and -"Software" and -"Science"`, count: 43 - 10 - 5 - 3},
		{query: `LIST WHERE status = "done"`, want: []string{"Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{query: `LIST WHERE STATUS = "done"`, want: []string{"Cooking/Sourdough Bread.md", "Software/Rust Ownership.md"}},
		{query: `LIST WHERE status = "DONE"`, want: []string{}},
		{query: `LIST WHERE status != "done" AND status`, want: []string{"Cooking/Pasta Carbonara.md", "Misc/Frontmatter Only.md", "Projects/Crawler.md", "Projects/Log Pipeline.md"}},
		{query: `LIST WHERE rating > 4`, want: []string{"Cooking/Sourdough Bread.md"}},
		// Dataview orders null below everything: a missing rating is < 5.
		{query: `LIST WHERE rating < 5`, count: 42},
		{query: `LIST WHERE rating AND rating < 5`, want: []string{"Cooking/Pasta Carbonara.md"}},
		{query: `LIST WHERE rating = null`, count: 41},
		{query: `LIST WHERE rating >= "4"`, want: []string{}}, // number < string across types
		{query: `LIST WHERE contains(tags, "recipe")`, want: []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{query: `LIST WHERE contains(tags, "cook")`, want: cooking},
		{query: `LIST WHERE icontains(tags, "RECIPE")`, want: []string{"Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{query: `LIST WHERE econtains(tags, "cook")`, want: []string{"Cooking/Knife Skills.md"}}, // tags: cooking (text)
		{query: `LIST WHERE contains(file.tags, "#cooking")`, want: cooking},
		{query: `LIST WHERE econtains(file.etags, "#cooking")`, want: []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md"}},
		{query: `LIST WHERE file.day >= date(2026-02-01)`, want: []string{"Daily/2026-02-01.md", "Daily/2026-03-10.md"}},
		{query: `LIST WHERE date > date(2026-01-31) AND date < date(2026-03-01)`, want: []string{"Daily/2026-02-01.md"}},
		{query: `LIST WHERE date = date(2026-03-10)`, want: []string{"Daily/2026-03-10.md"}},
		{query: `LIST WHERE file.day > date(today) - dur(7 weeks)`, want: []string{"Daily/2026-02-01.md", "Daily/2026-03-10.md"}},
		{query: `LIST WHERE file.name = "Ideas"`, want: []string{"Archive/Ideas.md", "Projects/Ideas.md"}},
		{query: `LIST WHERE file.folder = "Archive/2019/Old Notes"`, want: []string{"Archive/2019/Old Notes/Ancient.md"}},
		{query: `LIST WHERE startswith(file.path, "Gardening/")`, want: []string{"Gardening/Garden Log.md", "Gardening/Tomatoes.md"}},
		{query: `LIST WHERE length(file.inlinks) = 0`, count: 12},
		{query: `LIST WHERE length(file.outlinks) = 19`, want: []string{"Home.md"}},
		{query: `LIST WHERE contains(file.outlinks, [[Go Concurrency]])`, want: []string{"Home.md", "Projects/Crawler.md", "Projects/Log Pipeline.md", "Software/Concurrency Patterns.md", "Syntax/Wikilinks.md"}},
		{query: `LIST WHERE contains(file.inlinks, [[Home]])`, count: 19},
		{query: `LIST WHERE contains(file.aliases, "K8s")`, want: []string{"Software/Kubernetes.md"}},
		{query: `LIST WHERE [[Sourdough Bread]].rating = 5 AND file.name = "Home"`, want: []string{"Home.md"}},
		{query: `LIST WHERE !status`, count: 43 - 6},
		{query: `LIST FROM "Cooking" SORT rating DESC`, want: []string{"Cooking/Sourdough Bread.md", "Cooking/Pasta Carbonara.md", "Cooking/Knife Skills.md"}},
		{query: `LIST FROM "Cooking" SORT rating`, want: []string{"Cooking/Knife Skills.md", "Cooking/Pasta Carbonara.md", "Cooking/Sourdough Bread.md"}},
		{query: `LIST FROM "Daily" SORT file.name DESC LIMIT 2`, want: []string{"Daily/2026-03-10.md", "Daily/2026-02-01.md"}},
		{query: `LIST SORT file.name LIMIT 4`, want: []string{"Daily/2026-01-15.md", "Daily/2026-02-01.md", "Daily/2026-03-10.md", "Archive/2019/Old Notes/Ancient.md"}},
		{query: `LIST FROM "Projects" or "Archive" SORT file.name, file.path DESC`, want: []string{"Archive/2019/Old Notes/Ancient.md", "Projects/Crawler.md", "Projects/Ideas.md", "Archive/Ideas.md", "Projects/Log Pipeline.md", "Archive/Old Plans.md", "Projects/Roadmap.md"}},
		{query: `LIST FROM "Cooking" LIMIT 2 SORT file.name DESC`, want: []string{"Cooking/Pasta Carbonara.md", "Cooking/Knife Skills.md"}},
		{query: `LIST FROM "Cooking" LIMIT 0`, want: []string{}},
		{query: `LIST FROM "Cooking" WHERE rating - 1 > 3`, want: []string{"Cooking/Sourdough Bread.md"}, warn: "WHERE failed on 1 of 3 pages, which were left out: No implementation found for 'null - number'"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := runQuery(t, snap, g, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got := rowPaths(res)
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("rows %q\nwant %q", got, tt.want)
			}
			if tt.want == nil && len(got) != tt.count {
				t.Errorf("%d rows, want %d: %q", len(got), tt.count, got)
			}
			if res.Total != len(got) || res.Truncated {
				t.Errorf("total %d truncated %v for %d rows", res.Total, res.Truncated, len(got))
			}
			warnings := strings.Join(res.Warnings, "\n")
			if (tt.warn == "") != (warnings == "") || !strings.Contains(warnings, tt.warn) {
				t.Errorf("warnings %q, want %q", warnings, tt.warn)
			}
		})
	}
}

func TestRunTableValues(t *testing.T) {
	snap, g := fixture(t)
	tests := []struct {
		query   string
		columns []string
		want    map[string]string // path → JSON of the row's values
	}{
		{
			query:   `TABLE file.name, file.folder, file.ext, file.size, file.tags, file.etags, file.aliases, file.link, file.day FROM "Cooking/Sourdough Bread"`,
			columns: []string{"file.name", "file.folder", "file.ext", "file.size", "file.tags", "file.etags", "file.aliases", "file.link", "file.day"},
			want:    map[string]string{"Cooking/Sourdough Bread.md": `["Sourdough Bread","Cooking","md",1198,["#cooking/baking","#cooking","#recipe"],["#cooking/baking","#recipe"],["Sourdough","Levain bread"],"[[Cooking/Sourdough Bread.md]]",null]`},
		},
		{
			query:   `TABLE WITHOUT ID rating * 2 AS "double", "★" * rating AS stars, "rated " + rating AS text, rating / 0 AS inf, status + 1 AS s FROM #recipe`,
			columns: []string{"double", "stars", "text", "inf", "s"},
			want: map[string]string{
				"Cooking/Pasta Carbonara.md": `[8,"★★★★","rated 4",null,"draft1"]`,
				"Cooking/Sourdough Bread.md": `[10,"★★★★★","rated 5",null,"done1"]`,
			},
		},
		{
			query:   `TABLE date, file.day + dur(1 month) AS next, date(2026-03-31) - file.day AS left, file.day - dur(1 day 2h) AS before, file.day.weekday AS wd, file.day.year AS y FROM "Daily/2026-01-15"`,
			columns: []string{"date", "next", "left", "before", "wd", "y"},
			want:    map[string]string{"Daily/2026-01-15.md": `["2026-01-15","2026-02-15","2 months, 2 weeks, 2 days","2026-01-13T22:00:00+01:00",4,2026]`},
		},
		{
			query:   `TABLE date(today), date(now), date(sow), date(eom), dur(90 minutes), dur(2 weeks).days, date("2026-02-30"), date("2026-02-03") FROM "Home"`,
			columns: []string{"date(today)", "date(now)", "date(sow)", "date(eom)", "dur(90 minutes)", "dur(2 weeks).days", `date("2026-02-30")`, `date("2026-02-03")`},
			want:    map[string]string{"Home.md": `["2026-03-15","2026-03-15T12:00:00+01:00","2026-03-09","2026-03-31T23:59:59+01:00","1 hour, 30 minutes",14,null,"2026-02-03"]`},
		},
		{
			query:   `TABLE length(file.inlinks) AS "in", file.inlinks, default(rating, 0) AS r, choice(rating, "rated", "unrated") AS c FROM "Science/Plate Tectonics"`,
			columns: []string{"in", "file.inlinks", "r", "c"},
			want:    map[string]string{"Science/Plate Tectonics.md": `[2,["[[Home.md]]","[[Syntax/Wikilinks.md]]"],0,"unrated"]`},
		},
		{
			query:   `LIST lower(tags) + ["x"] FROM "Cooking/Pasta Carbonara"`,
			columns: []string{`lower(tags) + ["x"]`},
			want:    map[string]string{"Cooking/Pasta Carbonara.md": `[["cooking","recipe","x"]]`},
		},
		{
			query:   `TABLE contains(tags, ["recipe", "nope"]) AS v, number("rated 4.5 stars") AS n, length("日本") AS l, file.name[0] AS first FROM "Cooking/Pasta Carbonara"`,
			columns: []string{"v", "n", "l", "first"},
			want:    map[string]string{"Cooking/Pasta Carbonara.md": `[[true,false],4.5,2,"P"]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := runQuery(t, snap, g, tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Columns, tt.columns) {
				t.Errorf("columns %q, want %q", res.Columns, tt.columns)
			}
			if len(res.Rows) != len(tt.want) {
				t.Fatalf("%d rows, want %d", len(res.Rows), len(tt.want))
			}
			for _, r := range res.Rows {
				vals := make([]any, len(r.Values))
				for i, v := range r.Values {
					vals[i] = JSON(v)
				}
				raw, err := json.Marshal(vals)
				if err != nil {
					t.Fatal(err)
				}
				if string(raw) != tt.want[r.Path] {
					t.Errorf("%s:\n got %s\nwant %s", r.Path, raw, tt.want[r.Path])
				}
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	snap, g := fixture(t)
	tests := []struct {
		query, want string
		unsupported bool
	}{
		{`LIST FROM outgoing([[Nope]])`, "outgoing([[Nope]]): no such note in the vault (line 1, column 11)", false},
		{`TABLE rating - 1 FROM "Daily"`, "a column failed on every page: No implementation found for 'null - number' (line 1, column 7)", false},
		{"LIST\nWHERE lower(file.size)", "WHERE failed on every page: No implementation of 'lower' found for arguments: number (line 2, column 1)", false},
		{`LIST LIMIT "ten"`, "LIMIT needs a number, not string (line 1, column 6)", false},
		{`LIST LIMIT -1`, "LIMIT needs a number ≥ 0", false},
		{`LIST WHERE row.file["ctime"]`, "file.ctime is not available", true},
		{`TABLE "x" * 1000000 AS a, "y" * 1000000 AS b`, "the query builds more than 32 MB of text", false},
		{`TABLE "x" * 2000000`, "a column failed on every page: text * 2000000 would be too long", false},
		{`LIST WHERE [[Home]].file.tasks`, "file.tasks is not supported", true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, err := runQuery(t, snap, g, tt.query)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want *Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) || pe.Unsupported != tt.unsupported {
				t.Errorf("error %q (unsupported %v), want %q (%v)", err, pe.Unsupported, tt.want, tt.unsupported)
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	snap, g := fixture(t)
	q, err := Parse("LIST WHERE rating")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Run(ctx, snap, g, testNow); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
