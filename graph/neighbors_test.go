package graph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// taggedSnapshot builds a snapshot of notes named n0, n1, … with the
// given tags.
func taggedSnapshot(t *testing.T, tags ...[]string) *vault.Snapshot {
	t.Helper()
	var notes []*vault.Note
	for i, ts := range tags {
		notes = append(notes, &vault.Note{Path: fmt.Sprintf("n%02d.md", i), Kind: vault.KindMarkdown, Tags: ts})
	}
	return vault.NewSnapshot(t.TempDir(), notes, nil, nil)
}

func siblingStrings(s *vault.Snapshot, sibs []Sibling) []string {
	out := []string{}
	for _, sb := range sibs {
		out = append(out, fmt.Sprint(s.Notes[sb.Note].Path, " ", sb.Shared))
	}
	return out
}

func TestTagSiblings(t *testing.T) {
	s := taggedSnapshot(t,
		[]string{"A", "b", "Rare"}, // n00: the center
		[]string{"a", "B"},         // two shared tags, other case
		[]string{"a"},              // one common-ish tag
		[]string{"rare"},           // one rare tag: ranks above n02
		[]string{"a", "x"},         // one shared tag, same as n02: path order
		[]string{"x"},              // nothing shared
		[]string{"a/sub"},          // nested tags are other tags
	)
	ix := NewTagSiblings(s)
	sibs, total := ix.Siblings(0, 10)
	want := []string{"n01.md [A b]", "n03.md [Rare]", "n02.md [A]", "n04.md [A]"}
	if got := siblingStrings(s, sibs); !slices.Equal(got, want) || total != 4 {
		t.Fatalf("siblings %q (total %d), want %q", got, total, want)
	}
	sibs, total = ix.Siblings(0, 2)
	if got := siblingStrings(s, sibs); !slices.Equal(got, want[:2]) || total != 4 {
		t.Fatalf("limited siblings %q (total %d)", got, total)
	}
	// Scratch is reset between calls: the same answer twice.
	again, _ := ix.Siblings(0, 10)
	if got := siblingStrings(s, again); !slices.Equal(got, want) {
		t.Fatalf("second call %q", got)
	}
	if sibs, total := ix.Siblings(5, 10); len(sibs) != 1 || total != 1 || s.Notes[sibs[0].Note].Path != "n04.md" {
		t.Fatalf("n05 siblings %q", siblingStrings(s, sibs))
	}
	for _, bad := range []int{-1, 99} {
		if sibs, total := ix.Siblings(bad, 10); sibs != nil || total != 0 {
			t.Errorf("Siblings(%d) = %v, %d", bad, sibs, total)
		}
	}
	if sibs, _ := ix.Siblings(0, 0); len(sibs) != 0 {
		t.Errorf("limit 0 gave %d", len(sibs))
	}
}

func TestTagSiblingsIgnoreCommonTags(t *testing.T) {
	var tags [][]string
	for i := range CommonTagMinNotes + 5 {
		ts := []string{"zettel"}
		if i%5 == 0 {
			ts = append(ts, "topic")
		}
		tags = append(tags, ts)
	}
	s := taggedSnapshot(t, tags...)
	ix := NewTagSiblings(s)
	if got := ix.Ignored(0); !slices.Equal(got, []string{"zettel"}) {
		t.Fatalf("ignored %q", got)
	}
	sibs, total := ix.Siblings(0, 100)
	if total != 4 || len(sibs) != 4 || !slices.Equal(sibs[0].Shared, []string{"topic"}) {
		t.Fatalf("siblings %q total %d", siblingStrings(s, sibs), total)
	}
	if sibs, total := ix.Siblings(1, 100); total != 0 || len(sibs) != 0 {
		t.Fatalf("a note with only the common tag has siblings %q", siblingStrings(s, sibs))
	}
	// A small vault keeps every tag.
	small := taggedSnapshot(t, []string{"zettel"}, []string{"zettel"}, []string{"zettel"})
	if sibs, _ := NewTagSiblings(small).Siblings(0, 10); len(sibs) != 2 {
		t.Fatalf("small vault siblings %d", len(sibs))
	}
}

func TestTagSiblingsFixture(t *testing.T) {
	g := testGraph(t)
	ix := NewTagSiblings(g.Snapshot())
	sibs, total := ix.Siblings(id(t, g, "Syntax/Wikilinks.md"), 10)
	want := []string{
		"Syntax/Code Fences.md [syntax-test]", "Syntax/Embeds.md [syntax-test]",
		"Syntax/Headings and Blocks.md [syntax-test]", "Syntax/Relative Links.md [syntax-test]",
	}
	if got := siblingStrings(g.Snapshot(), sibs); !slices.Equal(got, want) || total != 4 {
		t.Fatalf("siblings %q (total %d)", got, total)
	}
}
