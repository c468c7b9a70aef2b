package search

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestSnippetKeepsMarkdownValid searches one-line notes and checks the
// exact snippet: marks never land inside a link target, a URL or a code
// span, and an aliased wikilink reads as its display text.
func TestSnippetKeepsMarkdownValid(t *testing.T) {
	tests := []struct {
		name, body, query, want string
	}{
		{"aliased wikilink shows display text", "You can embed [[Embed files|any other file]] in a note.", "embed",
			"You can **embed** any other file in a note."},
		{"display text is marked", "See [[Embed files|embedding guide]] for more.", "guide",
			"See embedding **guide** for more."},
		{"plain wikilink marked whole", "Read [[Embed files]] first.", "embed",
			"Read **[[Embed files]]** first."},
		{"heading link marked whole", "Read [[Embed files#Embed a note]] now.", "embed",
			"Read **[[Embed files#Embed a note]]** now."},
		{"embed kept whole", "Picture ![[orchard map.png]] of the orchard.", "orchard",
			"Picture **![[orchard map.png]]** of the **orchard**."},
		{"markdown link marks text, not url", "Go to [orchard notes](https://example.org/orchard) today.", "orchard",
			"Go to [**orchard** notes](https://example.org/orchard) today."},
		{"bare url marked whole", "Source https://example.org/orchard/trees is cited.", "orchard",
			"Source **https://example.org/orchard/trees** is cited."},
		{"code span marked whole", "Run `orchard --prune` weekly.", "orchard",
			"Run **`orchard --prune`** weekly."},
		{"unterminated link is prose", "Broken [[orchard link here.", "orchard",
			"Broken [[**orchard** link here."},
		{"task box is not a link", "- [ ] prune the orchard", "orchard",
			"- [ ] prune the **orchard**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "note.md", tt.body+"\n")
			e, err := newEngine(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			res := mustSearch(t, e, Request{Query: tt.query})
			if len(res.Hits) != 1 {
				t.Fatalf("%d hits", len(res.Hits))
			}
			if got := res.Hits[0].Snippet; got != tt.want {
				t.Fatalf("snippet\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestSnippetTrimNeverCutsConstructs slides a link, a URL and a code span
// across both cut points of a long line: each is kept whole or left out.
func TestSnippetTrimNeverCutsConstructs(t *testing.T) {
	words := strings.Repeat("some filler words ", 40)
	for _, c := range []string{"[[A long note name about trees|the display text shown]]", "[[Another long target note name]]", "[text of a link](https://example.org/a/long/path)", "`code span with spaces`"} {
		base := words[:200] + "**orchard** " + words[:500]
		for at := 0; at < len(base); at++ {
			if base[at] != ' ' {
				continue
			}
			text := base[:at+1] + c + base[at:]
			got := trimAround(text, strings.Index(text, HighlightOpen))
			checkValidSnippet(t, got)
			head := c[:6]
			if strings.Contains(got, head) != strings.Contains(got, c) {
				t.Fatalf("%q cut at offset %d: %q", c, at, got)
			}
		}
	}
}

var markInLink = regexp.MustCompile(`\[\[[^\]]*\*\*[^\]]*\]\]|\]\([^)]*\*\*[^)]*\)`)

// checkValidSnippet fails when s has a mark inside a link target or URL,
// an unbalanced wikilink or an open mark.
func checkValidSnippet(t *testing.T, s string) {
	t.Helper()
	if markInLink.MatchString(s) {
		t.Fatalf("mark inside a link: %q", s)
	}
	if strings.Count(s, "[[") != strings.Count(s, "]]") {
		t.Fatalf("unbalanced wikilink: %q", s)
	}
	if strings.Count(s, HighlightOpen)%2 != 0 {
		t.Fatalf("open mark: %q", s)
	}
}

// TestFixtureSnippetsValid runs the fixture's own vocabulary as queries
// and checks every snippet.
func TestFixtureSnippetsValid(t *testing.T) {
	e := testEngine(t)
	for _, q := range []string{"embed", "link", "note", "bread", "levain hydration", "orchard", "graph", "tag", "pdf", "search", "daily", "project"} {
		for _, h := range mustSearch(t, e, Request{Query: q, Limit: 20}).Hits {
			checkValidSnippet(t, h.Snippet)
		}
	}
}

// TestDrawingHit checks an Excalidraw drawing is found by its text
// elements, reported as kind "excalidraw", and never by its banner or
// drawing data.
func TestDrawingHit(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "Excalidraw/Pipeline.excalidraw.md", "---\nexcalidraw-plugin: parsed\n---\n==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n\n# Text Elements\nFetch decode execute ^e4xwfsLa\n\n%%\n# Drawing\n```json\n{\"type\":\"excalidraw\",\"elements\":[{\"id\":\"zebrafish\"}]}\n```\n%%\n")
	write(t, dir, "other.md", "A note that mentions nothing in particular.\n")
	e, err := newEngine(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	hits := mustSearch(t, e, Request{Query: "decode"}).Hits
	if len(hits) != 1 || hits[0].Kind != "excalidraw" || hits[0].Snippet != "Fetch **decode** execute" {
		t.Fatalf("hits %+v", hits)
	}
	for _, q := range []string{"zebrafish", "switch more options menu", "elements"} {
		if hits := mustSearch(t, e, Request{Query: q}).Hits; len(hits) != 0 {
			t.Errorf("%q found %s: %q", q, hits[0].Path, hits[0].Snippet)
		}
	}
}
