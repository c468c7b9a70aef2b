package tools

import (
	"strings"
	"testing"
)

func TestReadNoteSection(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		name           string
		args           map[string]any
		section        string
		lineStart, end int
		bodyPrefix     string
		headings       int
	}{
		{"heading text", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": "Hydration"}, "Sourdough Bread/Hydration", 19, 21, "## Hydration\n\nI bake at 75% hydration", 1},
		{"case-insensitive, with #", map[string]any{"title": "Sourdough", "section": "## hydration"}, "Sourdough Bread/Hydration", 19, 21, "## Hydration", 1},
		{"path", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": "sourdough bread/Proofing"}, "Sourdough Bread/Proofing", 23, 25, "## Proofing", 1},
		{"top heading is the whole note", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": "Sourdough Bread"}, "Sourdough Bread", 7, 29, "# Sourdough Bread", 6},
		{"nested sections are included", map[string]any{"path": "Syntax/Headings and Blocks.md", "section": "Heading level two"}, "Headings and Blocks/Heading level two", 8, 18, "## Heading level two", 5},
		{"deep path", map[string]any{"path": "Syntax/Headings and Blocks.md", "section": "Heading level four/Heading level five"},
			"Headings and Blocks/Heading level two/Heading level three/Heading level four/Heading level five", 14, 18, "##### Heading level five", 2},
		{"last section", map[string]any{"path": "Syntax/Headings and Blocks.md", "section": "Closed heading"}, "Headings and Blocks/Closed heading", 20, 26, "## Closed heading ##", 1},
		{"CRLF note", map[string]any{"path": "Syntax/CRLF Note.md", "section": "CRLF heading"}, "CRLF heading", 4, 12, "# CRLF heading", 2},
		{"CRLF subsection", map[string]any{"path": "Syntax/CRLF Note.md", "section": "CRLF heading/second crlf heading"}, "CRLF heading/Second CRLF heading", 10, 12, "## Second CRLF heading\n\nNothing else", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", tt.args))
			if out.Section != tt.section || out.LineStart != tt.lineStart || out.LineEnd != tt.end ||
				!strings.HasPrefix(out.Body, tt.bodyPrefix) || len(out.Headings) != tt.headings || out.Format != "full" {
				t.Fatalf("section %q lines %d-%d headings %d body %q", out.Section, out.LineStart, out.LineEnd, len(out.Headings), out.Body)
			}
			if lines := strings.Count(out.Body, "\n") + 1; lines != tt.end-tt.lineStart+1 || strings.Contains(out.Body, "\r") {
				t.Fatalf("body has %d lines for %d-%d: %q", lines, tt.lineStart, tt.end, out.Body)
			}
		})
	}
	// Links are those inside the section.
	out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Syntax/Wikilinks.md", "section": "Second section"}))
	for _, l := range out.Links {
		if l.Line < out.LineStart || l.Line > out.LineEnd {
			t.Errorf("link %+v outside the section %d-%d", l, out.LineStart, out.LineEnd)
		}
	}
	if len(out.Links) != 4 || out.Links[0].Target != "Nonexistent Note" {
		t.Fatalf("links %+v", out.Links)
	}
}

func TestReadNoteSectionMisses(t *testing.T) {
	cs := connect(t)
	for _, tt := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"unknown section lists headings", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": "Baking"},
			[]string{`section "Baking" not found`, `"Sourdough Bread/Hydration"`, `"Sourdough Bread/Crumb"`}},
		{"wrong parent", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": "Crumb/Hydration"}, []string{"not found"}},
		{"no headings", map[string]any{"path": "Misc/Frontmatter Only.md", "section": "x"}, []string{"has no headings"}},
		{"blank section", map[string]any{"path": "Cooking/Sourdough Bread.md", "section": " # "}, []string{"section is empty"}},
		{"bad format", map[string]any{"path": "Home.md", "format": "outline"}, []string{"format"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "obsidian_read_note", tt.args)
			for _, w := range tt.want {
				if !res.IsError || !strings.Contains(text(res), w) {
					t.Fatalf("IsError=%v %q, want %q", res.IsError, text(res), w)
				}
			}
		})
	}
}

func TestReadNoteMap(t *testing.T) {
	cs := connect(t)
	res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Cooking/Sourdough Bread.md", "format": "map"})
	out := decode[ReadNoteOutput](t, res)
	raw := text(res)
	for _, absent := range []string{`"links"`, `"frontmatter"`, "nail polish"} {
		if strings.Contains(raw, absent) {
			t.Errorf("map output contains %s", absent)
		}
	}
	if out.Format != "map" || out.Body != "" || out.Size == 0 || out.Title != "Sourdough Bread" || len(out.Headings) != 6 {
		t.Fatalf("map %+v", out)
	}
	if strings.Join(out.FrontmatterKeys, ",") != "aliases,rating,status,tags" {
		t.Fatalf("frontmatter_keys %q", out.FrontmatterKeys)
	}
	if out.WikilinksCount == nil || *out.WikilinksCount != 0 || out.EmbedsCount == nil || *out.EmbedsCount != 0 || out.TagsCount == nil || *out.TagsCount != 2 {
		t.Fatalf("counts %v %v %v", out.WikilinksCount, out.EmbedsCount, out.TagsCount)
	}
	if len(out.Sections) != 6 {
		t.Fatalf("sections %+v", out.Sections)
	}
	hyd := out.Sections[3]
	want := "## Hydration\n\nI bake at 75% hydration with strong bread flour: 500 g flour, 375 g water, 10 g salt and 100 g levain. Higher hydration gives a more open crumb, but the dough gets sticky and hard to shape."
	if hyd.Text != "Hydration" || hyd.Level != 2 || hyd.Line != 19 || hyd.LineEnd != 21 || hyd.Lines != 3 || hyd.Bytes != len(want) || hyd.Path != "Sourdough Bread/Hydration" {
		t.Fatalf("hydration %+v (want %d bytes)", hyd, len(want))
	}
	if top := out.Sections[0]; top.Line != 7 || top.LineEnd != 29 || top.Lines != 23 {
		t.Fatalf("top %+v", top)
	}

	emb := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Syntax/Embeds.md", "format": "map"}))
	if *emb.EmbedsCount != 5 || *emb.WikilinksCount != 0 || *emb.TagsCount != 1 {
		t.Fatalf("embeds map %+v", emb)
	}
	wl := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Syntax/Wikilinks.md", "format": "map", "section": "second section"}))
	if *wl.WikilinksCount != 4 || len(wl.Sections) != 1 || wl.Section != "Wikilinks/Second section" || wl.Body != "" {
		t.Fatalf("section map %+v", wl)
	}
	bare := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Misc/Orphan.md", "format": "map"}))
	if bare.FrontmatterKeys == nil || len(bare.FrontmatterKeys) != 0 || *bare.TagsCount != 0 || len(bare.Sections) != 1 {
		t.Fatalf("orphan map %+v", bare)
	}
}

func TestReadNoteFullKeepsFields(t *testing.T) {
	cs := connect(t)
	res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Misc/Orphan.md"})
	raw := text(res)
	for _, field := range []string{`"path"`, `"title"`, `"frontmatter":{}`, `"tags":[]`, `"aliases":[]`, `"headings"`, `"links":[]`, `"body"`, `"size"`, `"modified"`, `"age_days"`, `"format":"full"`} {
		if !strings.Contains(raw, field) {
			t.Errorf("full output lacks %s: %s", field, raw)
		}
	}
	for _, field := range []string{"frontmatter_keys", "sections", "wikilinks_count", "line_start"} {
		if strings.Contains(raw, field) {
			t.Errorf("full output has %s", field)
		}
	}
}
