package graph

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// handGraph builds a graph from "Note: Target, !Embedded, …" lines; every
// note named anywhere on the left exists.
func handGraph(t testing.TB, spec ...string) *Graph {
	t.Helper()
	var notes []*vault.Note
	for _, line := range spec {
		name, targets, _ := strings.Cut(line, ":")
		n := &vault.Note{Path: strings.TrimSpace(name) + ".md", Kind: vault.KindMarkdown, Title: strings.TrimSpace(name), BodyLine: 1}
		for i, tgt := range strings.Split(targets, ",") {
			if tgt = strings.TrimSpace(tgt); tgt == "" {
				continue
			}
			embed := strings.HasPrefix(tgt, "!")
			tgt = strings.TrimPrefix(tgt, "!")
			raw := "[[" + tgt + "]]"
			if embed {
				raw = "!" + raw
			}
			n.Links = append(n.Links, vault.Link{Raw: raw, Target: tgt, Embed: embed, Line: i + 1})
		}
		notes = append(notes, n)
	}
	return New(vault.NewSnapshot(t.TempDir(), notes, nil, nil))
}

// names turns paths of ids into "A>B>C" strings.
func names(g *Graph, ps [][]int) []string {
	out := []string{}
	for _, p := range ps {
		var s []string
		for _, id := range p {
			s = append(s, g.snap.Notes[id].Title)
		}
		out = append(out, strings.Join(s, ">"))
	}
	return out
}

func TestShortestPaths(t *testing.T) {
	tests := []struct {
		name     string
		spec     []string
		from, to string
		opt      PathOptions // FollowEmbeds is set unless skipEmbeds
		skip     bool        // skip embeds
		want     []string
		hops     int
	}{
		{name: "direct link", spec: []string{"A: B", "B:"}, from: "A", to: "B", opt: PathOptions{}, want: []string{"A>B"}, hops: 1},
		{name: "self", spec: []string{"A: B", "B:"}, from: "A", to: "A", want: []string{"A"}, hops: 0},
		{name: "unreachable", spec: []string{"A: B", "B:", "C:"}, from: "A", to: "C", want: []string{}, hops: -1},
		{name: "links are directed", spec: []string{"A: B", "B:"}, from: "B", to: "A", want: []string{}, hops: -1},
		{name: "undirected goes back along links", spec: []string{"A: B", "C: B", "B:"}, from: "A", to: "C",
			opt: PathOptions{Undirected: true}, want: []string{"A>B>C"}, hops: 2},
		{name: "one shortest path by default", spec: []string{"A: B, C", "B: D", "C: D", "D:"}, from: "A", to: "D",
			want: []string{"A>B>D"}, hops: 2},
		{name: "equal-length alternatives in path order", spec: []string{"A: C, B", "B: D", "C: D", "D:"}, from: "A", to: "D",
			opt: PathOptions{MaxPaths: 5}, want: []string{"A>B>D", "A>C>D"}, hops: 2},
		{name: "longer routes are not alternatives", spec: []string{"A: B, X", "B: D", "X: Y", "Y: D", "D:"}, from: "A", to: "D",
			opt: PathOptions{MaxPaths: 5}, want: []string{"A>B>D"}, hops: 2},
		{name: "depth cut-off", spec: []string{"A: B", "B: C", "C: D", "D: E", "E:"}, from: "A", to: "E",
			opt: PathOptions{MaxDepth: 3}, want: []string{}, hops: -1},
		{name: "depth just enough", spec: []string{"A: B", "B: C", "C: D", "D: E", "E:"}, from: "A", to: "E",
			opt: PathOptions{MaxDepth: 4}, want: []string{"A>B>C>D>E"}, hops: 4},
		{name: "cycle", spec: []string{"A: B", "B: C", "C: A"}, from: "B", to: "A", opt: PathOptions{MaxPaths: 3}, want: []string{"B>C>A"}, hops: 2},
		{name: "cycle without the goal terminates", spec: []string{"A: B", "B: C", "C: A", "Z:"}, from: "A", to: "Z",
			opt: PathOptions{MaxDepth: 10}, want: []string{}, hops: -1},
		{name: "embeds followed", spec: []string{"A: !B, D", "B: C", "D: E", "E: C", "C:"}, from: "A", to: "C",
			want: []string{"A>B>C"}, hops: 2},
		{name: "embeds skipped", spec: []string{"A: !B, D", "B: C", "D: E", "E: C", "C:"}, from: "A", to: "C",
			skip: true, want: []string{"A>D>E>C"}, hops: 3},
		{name: "an embed and a plain link to the same note", spec: []string{"A: !B, B", "B:"}, from: "A", to: "B",
			skip: true, want: []string{"A>B"}, hops: 1},
		{name: "undirected without embeds", spec: []string{"A: B", "C: !B", "B:"}, from: "A", to: "C",
			opt: PathOptions{Undirected: true}, skip: true, want: []string{}, hops: -1},
		{name: "alternatives capped", spec: []string{"A: B1, B2, B3, B4", "B1: Z", "B2: Z", "B3: Z", "B4: Z", "Z:"}, from: "A", to: "Z",
			opt: PathOptions{MaxPaths: 3}, want: []string{"A>B1>Z", "A>B2>Z", "A>B3>Z"}, hops: 2},
		{name: "self links are no edges", spec: []string{"A: A, B", "B:"}, from: "A", to: "B", want: []string{"A>B"}, hops: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := handGraph(t, tt.spec...)
			from, _ := g.snap.NoteID(tt.from)
			to, _ := g.snap.NoteID(tt.to)
			opt := tt.opt
			opt.FollowEmbeds = !tt.skip
			res := NewPathFinder(g).ShortestPaths(from, to, opt)
			if got := names(g, res.Paths); !slices.Equal(got, tt.want) || res.Hops != tt.hops {
				t.Fatalf("paths %q hops %d, want %q hops %d", got, res.Hops, tt.want, tt.hops)
			}
		})
	}
}

func TestShortestPathsBounds(t *testing.T) {
	g := handGraph(t, "A: B, C, D, E, F", "B:", "C:", "D:", "E:", "F: G", "G:")
	p := NewPathFinder(g)
	a, _ := g.snap.NoteID("A")
	gID, _ := g.snap.NoteID("G")
	res := p.ShortestPaths(a, gID, PathOptions{MaxVisited: 3, FollowEmbeds: true})
	if !res.Truncated || res.Hops != -1 {
		t.Fatalf("visit cap: %+v", res)
	}
	if res := p.ShortestPaths(a, gID, PathOptions{FollowEmbeds: true}); res.Truncated || res.Hops != 2 || res.Visited > len(g.snap.Notes) {
		t.Fatalf("no cap: %+v", res)
	}
	for _, ids := range [][2]int{{-1, 0}, {0, 99}, {99, 99}} {
		if res := p.ShortestPaths(ids[0], ids[1], PathOptions{}); res.Hops != -1 || len(res.Paths) != 0 || res.Paths == nil {
			t.Errorf("ids %v: %+v", ids, res)
		}
	}
	if res := p.ShortestPaths(a, gID, PathOptions{MaxDepth: 1000, FollowEmbeds: true}); res.Hops != 2 {
		t.Fatalf("huge depth: %+v", res)
	}
}

// TestShortestPathsReuseScratch runs many searches, in parallel, over one
// finder: pooled scratch must never leak state between searches.
func TestShortestPathsReuseScratch(t *testing.T) {
	g := handGraph(t, "A: B", "B: C", "C: D", "D:", "X: Y", "Y:")
	p := NewPathFinder(g)
	id := func(s string) int { i, _ := g.snap.NoteID(s); return i }
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				if res := p.ShortestPaths(id("A"), id("D"), PathOptions{FollowEmbeds: true, Undirected: (i+w)%2 == 0}); res.Hops != 3 {
					t.Errorf("A→D: %+v", res)
					return
				}
				if res := p.ShortestPaths(id("A"), id("Y"), PathOptions{FollowEmbeds: true}); res.Hops != -1 {
					t.Errorf("A→Y: %+v", res)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestScratchGenerationWrap(t *testing.T) {
	s := newScratch(3)
	s.gen = ^uint32(0)
	s.stamp[1] = 1
	s.next()
	if s.gen != 1 || s.seen(1) {
		t.Fatalf("after wrap gen=%d seen(1)=%v", s.gen, s.seen(1))
	}
}

func TestLinkBetween(t *testing.T) {
	g := handGraph(t, "A: !B, B", "C: B", "B:")
	id := func(s string) int { i, _ := g.snap.NoteID(s); return i }
	raw := func(e Edge) string { return g.snap.Notes[e.From].Links[e.Link].Raw }
	if e, back, ok := g.LinkBetween(id("A"), id("B"), false, true); !ok || back || raw(e) != "![[B]]" {
		t.Errorf("with embeds: %q back=%v ok=%v", raw(e), back, ok)
	}
	if e, back, ok := g.LinkBetween(id("A"), id("B"), false, false); !ok || back || raw(e) != "[[B]]" {
		t.Errorf("without embeds: %q back=%v ok=%v", raw(e), back, ok)
	}
	if e, back, ok := g.LinkBetween(id("B"), id("C"), true, true); !ok || !back || raw(e) != "[[B]]" || e.From != id("C") {
		t.Errorf("backward: %+v back=%v ok=%v", e, back, ok)
	}
	if _, _, ok := g.LinkBetween(id("B"), id("C"), false, true); ok {
		t.Error("directed B→C found")
	}
	if _, _, ok := g.LinkBetween(-1, id("C"), true, true); ok {
		t.Error("bad id found")
	}
}

// TestShortestPathsFixture checks paths through the fixture vault against
// the links listed in testdata/MANIFEST.md.
func TestShortestPathsFixture(t *testing.T) {
	g := testGraph(t)
	p := NewPathFinder(g)
	tests := []struct {
		from, to string
		opt      PathOptions
		want     []string
	}{
		{"Syntax/Relative Links.md", "Software/Go Concurrency.md", PathOptions{FollowEmbeds: true, MaxPaths: 10}, []string{
			"Syntax/Relative Links.md>Home.md>Software/Go Concurrency.md",
			"Syntax/Relative Links.md>Syntax/Wikilinks.md>Software/Go Concurrency.md",
		}},
		{"Daily/2026-03-10.md", "Science/Black Holes.md", PathOptions{FollowEmbeds: true, MaxPaths: 10}, []string{
			"Daily/2026-03-10.md>Daily/2026-02-01.md>Daily/2026-01-15.md>Science/Black Holes.md",
		}},
		{"Daily/2026-03-10.md", "Science/Black Holes.md", PathOptions{FollowEmbeds: true, MaxDepth: 2}, nil},
		{"Projects/Log Pipeline.md", "Software/Rust Ownership.md", PathOptions{FollowEmbeds: true}, nil},
		{"Projects/Log Pipeline.md", "Software/Rust Ownership.md", PathOptions{FollowEmbeds: true, Undirected: true, MaxPaths: 10}, []string{
			"Projects/Log Pipeline.md>Home.md>Software/Rust Ownership.md",
		}},
		{"Misc/Orphan.md", "Home.md", PathOptions{FollowEmbeds: true, Undirected: true, MaxDepth: 10}, nil},
	}
	for _, tt := range tests {
		res := p.ShortestPaths(id(t, g, tt.from), id(t, g, tt.to), tt.opt)
		var got []string
		for _, path := range res.Paths {
			got = append(got, strings.Join(paths(g, path), ">"))
		}
		if !slices.Equal(got, tt.want) || (res.Hops < 0) != (tt.want == nil) {
			t.Errorf("%s → %s %+v: hops %d paths:\n%s", tt.from, tt.to, tt.opt, res.Hops, strings.Join(got, "\n"))
		}
	}
}

func ExamplePathFinder_ShortestPaths() {
	notes := []*vault.Note{
		{Path: "A.md", Links: []vault.Link{{Raw: "[[B]]", Target: "B"}}},
		{Path: "B.md", Links: []vault.Link{{Raw: "[[C]]", Target: "C"}}},
		{Path: "C.md"},
	}
	g := New(vault.NewSnapshot("/vault", notes, nil, nil))
	res := NewPathFinder(g).ShortestPaths(0, 2, PathOptions{MaxDepth: 5, FollowEmbeds: true})
	fmt.Println(res.Hops, res.Paths)
	// Output: 2 [[0 1 2]]
}
