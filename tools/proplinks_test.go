package tools

import (
	"slices"
	"testing"
)

// TestPropertyLinksEverywhere checks that links in frontmatter values
// (Syntax/Properties.md of the fixture) are links to every tool, as
// they are in Obsidian.
func TestPropertyLinksEverywhere(t *testing.T) {
	cs := connect(t)

	back := decode[BacklinksOutput](t, call(t, cs, "obsidian_get_backlinks", map[string]any{"path": "Syntax/Headings and Blocks.md"}))
	if back.Total != 1 || back.TotalLinks != 2 || back.Backlinks[0].Path != "Syntax/Properties.md" {
		t.Fatalf("backlinks %+v", back)
	}
	if l := back.Backlinks[0].Links[1]; l.Line != 6 || l.Property != "see" || l.Raw != "[[Headings and Blocks#^block-two|block two]]" ||
		l.Snippet != "see: [[Headings and Blocks#^block-two|block two]]" {
		t.Errorf("backlink line %+v", l)
	}

	out := decode[OutboundLinksOutput](t, call(t, cs, "obsidian_get_outbound_links", map[string]any{"path": "Syntax/Properties.md"}))
	var props []string
	for _, l := range out.Links {
		props = append(props, l.Property+" "+l.Resolved)
	}
	if want := []string{"up Syntax/Wikilinks.md", "related Syntax/Embeds.md", "related Syntax/Tags.md",
		"see Syntax/Headings and Blocks.md", "see Syntax/Headings and Blocks.md", "pair Syntax/Code Fences.md",
		"pair Syntax/Relative Links.md", "source "}; !slices.Equal(props, want) {
		t.Errorf("outbound %q, want %q", props, want)
	}

	nb := decode[NeighborsOutput](t, call(t, cs, "obsidian_get_note_neighbors", map[string]any{"path": "Syntax/Tags.md"}))
	if nb.InboundTotal != 1 || nb.Inbound[0].Path != "Syntax/Properties.md" {
		t.Errorf("neighbors of Tags: %+v", nb.Inbound)
	}

	fp := decode[FindPathOutput](t, call(t, cs, "obsidian_find_path", map[string]any{"from": "Syntax/Properties.md", "to": "Science/Black Holes.md"}))
	if !fp.Found || fp.Hops != 2 {
		t.Errorf("find_path through a property link: %+v", fp)
	}

	for query, want := range map[string][]string{
		"LIST FROM [[Tags]]": {"Syntax/Properties.md"},
		`LIST FROM "Syntax" WHERE contains(file.outlinks, [[Embeds]])`: {"Syntax/Properties.md"},
		`LIST FROM "Syntax" WHERE contains(file.inlinks, [[Properties]])`: {"Syntax/Code Fences.md", "Syntax/Embeds.md",
			"Syntax/Headings and Blocks.md", "Syntax/Relative Links.md", "Syntax/Tags.md", "Syntax/Wikilinks.md"},
	} {
		dv := decode[DataviewOutput](t, call(t, cs, "obsidian_dataview_query", map[string]any{"query": query}))
		var got []string
		for _, r := range dv.Rows {
			got = append(got, r.Path)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}

	// A frontmatter filter matches a link by its note's name or path, and
	// by its text.
	for _, tt := range []struct {
		key  string
		want any
		ok   bool
	}{
		{"related", "Tags", true},
		{"related", "syntax/tags.md", true},
		{"related", "Syntax/Tags", true},
		{"related", "[[Embeds]]", true},
		{"see", "Headings and Blocks", true},
		{"up", "Wikilinks", true},
		{"source", "Missing Property Target", true},
		{"related", "tag forms", false},
		{"related", "Wikilinks", false},
	} {
		fs := decode[FrontmatterSearchOutput](t, call(t, cs, "obsidian_frontmatter_search", map[string]any{"key": tt.key, "equals": tt.want}))
		if got := fs.Total == 1 && fs.Matches[0].Path == "Syntax/Properties.md"; got != tt.ok || (!tt.ok && fs.Total != 0) {
			t.Errorf("frontmatter_search %s = %v: %+v", tt.key, tt.want, fs.Matches)
		}
		ln := decode[ListNotesOutput](t, call(t, cs, "obsidian_list_notes", map[string]any{"filter_frontmatter": map[string]any{tt.key: tt.want}}))
		if got := ln.Total == 1 && ln.Notes[0].Path == "Syntax/Properties.md"; got != tt.ok || (!tt.ok && ln.Total != 0) {
			t.Errorf("filter_frontmatter %s = %v: %d notes", tt.key, tt.want, ln.Total)
		}
	}
	sr := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "frontmatter links notes", "filter_frontmatter": map[string]any{"up": "Wikilinks"}}))
	if len(sr.Matches) != 1 || sr.Matches[0].Path != "Syntax/Properties.md" {
		t.Errorf("search with filter_frontmatter: %+v", sr.Matches)
	}
}
