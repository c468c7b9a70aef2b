package tools

import (
	"encoding/json"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// linksBenchCalls are typical calls of every link tool. The notes are
// picked from the engine: the most linked note (a hub) and a note far
// from it.
func linksBenchCalls(e *search.Engine) []struct {
	tool string
	args map[string]any
} {
	g := e.Graph()
	snap := e.Snapshot()
	hub, far := 0, len(snap.Notes)-1
	for i := range snap.Notes {
		if len(g.Backlinks(i)) > len(g.Backlinks(hub)) {
			hub = i
		}
	}
	hp, fp := snap.Notes[hub].Path, snap.Notes[far].Path
	return []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_resolve_wikilink", map[string]any{"wikilink": "[[" + snap.Notes[hub].Name() + "]]"}},
		{"obsidian_resolve_wikilink", map[string]any{"wikilink": "[[" + snap.Notes[hub].Name() + "#Definition]]", "include_content": true}},
		{"obsidian_resolve_wikilink", map[string]any{"wikilink": "[[No Such Note Anywhere]]"}},
		{"obsidian_get_backlinks", map[string]any{"path": hp}},
		{"obsidian_get_outbound_links", map[string]any{"path": hp}},
		{"obsidian_get_unresolved_wikilinks", map[string]any{}},
		{"obsidian_get_unresolved_wikilinks", map[string]any{"folder": "Math", "limit": 50}},
		{"obsidian_get_note_neighbors", map[string]any{"path": hp}},
		{"obsidian_find_path", map[string]any{"from": fp, "to": hp}},
		{"obsidian_find_path", map[string]any{"from": fp, "to": hp, "direction": "any", "include_alternatives": true, "max_depth": 10}},
	}
}

// BenchmarkLinkIndexBuild times deriving everything the link tools cache
// per engine (once per vault change).
func BenchmarkLinkIndexBuild(b *testing.B) {
	e := benchEngine(b)
	b.ReportAllocs()
	for b.Loop() {
		ix := newLinkTables(e)
		ix.tagSiblings()
		ix.missing.Links()
		ix.suggest("x", 1)
		ix.paths.ShortestPaths(0, 1, graph.PathOptions{FollowEmbeds: true, Undirected: true})
	}
}

// BenchmarkLinkHandlers times the same calls without the MCP round trip
// (no JSON encoding, no output-schema validation): the tools' own cost.
func BenchmarkLinkHandlers(b *testing.B) {
	e := benchEngine(b)
	c := &linkCache{}
	for _, call := range linksBenchCalls(e) {
		raw, err := json.Marshal(call.args)
		if err != nil {
			b.Fatal(err)
		}
		run := linksHandler(b, c, e, call.tool, raw)
		b.Run(call.tool, func(b *testing.B) {
			if err := run(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// linksHandler returns a closure running one link tool's handler on
// decoded arguments.
func linksHandler(b *testing.B, c *linkCache, e *search.Engine, tool string, raw []byte) func() error {
	b.Helper()
	decode := func(v any) {
		if err := json.Unmarshal(raw, v); err != nil {
			b.Fatal(err)
		}
	}
	switch tool {
	case "obsidian_resolve_wikilink":
		var in ResolveWikilinkInput
		decode(&in)
		return func() error { _, err := c.get(e).resolveWikilink(in); return err }
	case "obsidian_get_backlinks":
		var in BacklinksInput
		decode(&in)
		return func() error { _, err := c.get(e).backlinks(in); return err }
	case "obsidian_get_outbound_links":
		var in OutboundLinksInput
		decode(&in)
		return func() error { _, err := c.get(e).outbound(in); return err }
	case "obsidian_get_unresolved_wikilinks":
		var in UnresolvedInput
		decode(&in)
		return func() error { _, err := c.get(e).unresolvedLinks(in); return err }
	case "obsidian_get_note_neighbors":
		var in NeighborsInput
		decode(&in)
		return func() error { _, err := c.get(e).neighbors(in); return err }
	case "obsidian_find_path":
		var in FindPathInput
		decode(&in)
		return func() error { _, err := c.get(e).findPath(in); return err }
	}
	b.Fatalf("no handler for %s", tool)
	return nil
}
