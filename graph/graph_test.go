package graph

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

var (
	fixtureOnce sync.Once
	fixture     *Graph
	fixtureErr  error
)

// testGraph loads testdata/vault once for all tests of the package.
func testGraph(t testing.TB) *Graph {
	t.Helper()
	fixtureOnce.Do(func() {
		snap, err := vault.Load(context.Background(), "../testdata/vault", vault.Options{})
		if err != nil {
			fixtureErr = err
			return
		}
		fixture = New(snap)
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func id(t *testing.T, g *Graph, path string) int {
	t.Helper()
	i, ok := g.Snapshot().NoteID(path)
	if !ok {
		t.Fatalf("no note %q in the fixture", path)
	}
	return i
}

func paths(g *Graph, ids []int) []string {
	out := make([]string, len(ids))
	for i, n := range ids {
		out[i] = g.Snapshot().Notes[n].Path
	}
	return out
}

func TestInDegreeAndBacklinks(t *testing.T) {
	g := testGraph(t)
	tests := []struct {
		note    string
		degree  int
		sources []string // distinct linking notes, sorted
	}{
		{"Software/Go Concurrency.md", 5, []string{"Home.md", "Projects/Crawler.md", "Projects/Log Pipeline.md", "Software/Concurrency Patterns.md", "Syntax/Wikilinks.md"}},
		{"Science/Photosynthesis.md", 5, []string{"Home.md", "Languages/中文笔记.md", "Syntax/CRLF Note.md", "Syntax/Code Fences.md", "Syntax/Wikilinks.md"}},
		{"Software/Kubernetes.md", 3, []string{"Daily/2026-02-01.md", "Home.md", "Syntax/Wikilinks.md"}},
		{"Archive/Ideas.md", 2, []string{"Archive/Old Plans.md", "Gardening/Garden Log.md"}},
		{"Projects/Ideas.md", 1, []string{"Projects/Roadmap.md"}},
		{"Archive/2019/Old Notes/Ancient.md", 1, []string{"Archive/Old Plans.md"}},
		{"Misc/Orphan.md", 0, nil},
		{"Syntax/Embeds.md", 1, []string{"Syntax/Properties.md"}}, // a property link
	}
	for _, tt := range tests {
		t.Run(tt.note, func(t *testing.T) {
			n := id(t, g, tt.note)
			if got := g.InDegree(n); got != tt.degree {
				t.Errorf("InDegree = %d, want %d", got, tt.degree)
			}
			var from []int
			for _, e := range g.Backlinks(n) {
				if e.To != n {
					t.Errorf("backlink %+v does not point to the note", e)
				}
				from = append(from, e.From)
			}
			from = slices.Compact(from)
			got := paths(g, from)
			slices.Sort(got)
			if !slices.Equal(got, tt.sources) {
				t.Errorf("backlink sources = %q, want %q", got, tt.sources)
			}
		})
	}
}

func TestKubernetesHasTwoLinksFromWikilinks(t *testing.T) {
	g := testGraph(t)
	k, w := id(t, g, "Software/Kubernetes.md"), id(t, g, "Syntax/Wikilinks.md")
	n := 0
	for _, e := range g.Backlinks(k) {
		if e.From == w {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("Syntax/Wikilinks.md links Kubernetes %d times, want 2 ([[Kubernetes#Pods|…]] and [[K8s]])", n)
	}
}

func TestOutboundSkipsSelfAndUnresolved(t *testing.T) {
	g := testGraph(t)
	w := id(t, g, "Syntax/Wikilinks.md")
	for _, e := range g.Outbound(w) {
		if e.To == w {
			t.Errorf("self link %+v is a graph edge", e)
		}
		l := g.Snapshot().Notes[w].Links[e.Link]
		if l.Kind != vault.LinkNote || g.Snapshot().Notes[e.To].Path != l.Resolved {
			t.Errorf("edge %+v does not match link %+v", e, l)
		}
	}
	if !g.Links(w, id(t, g, "Science/Black Holes.md")) || g.Links(id(t, g, "Science/Black Holes.md"), w) {
		t.Error("Links must be directed: Wikilinks → Black Holes only")
	}
}

func TestUnresolved(t *testing.T) {
	g := testGraph(t)
	var got []string
	for _, u := range g.Unresolved() {
		got = append(got, g.Snapshot().Notes[u.From].Path+" → "+g.UnresolvedTarget(u))
	}
	want := []string{"Syntax/Properties.md → Missing Property Target", "Syntax/Wikilinks.md → Nonexistent Note"}
	if !slices.Equal(got, want) {
		t.Fatalf("unresolved = %q, want %q", got, want)
	}
}

func TestAttachmentBacklinks(t *testing.T) {
	g := testGraph(t)
	for _, att := range []string{"Attachments/diagram.png", "Attachments/paper.pdf"} {
		var from []string
		for _, e := range g.AttachmentBacklinks(att) {
			from = append(from, g.Snapshot().Notes[e.From].Path)
		}
		from = slices.Compact(from)
		want := []string{"Syntax/Embeds.md", "Syntax/Wikilinks.md"}
		if !slices.Equal(from, want) {
			t.Errorf("%s linked from %q, want %q", att, from, want)
		}
	}
}
