package tools

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// Benchmarks run on the vault named by ENQUIRE_BENCH_VAULT, by default the
// shared 13,415-note zettelkasten vault; they skip when it is absent.
var (
	benchOnce sync.Once
	benchEng  *search.Engine
	benchErr  error
)

// benchEngine loads the benchmark vault once (TF-IDF only).
func benchEngine(b *testing.B) *search.Engine {
	b.Helper()
	dir := vaulttest.BenchVault(b)
	benchOnce.Do(func() {
		snap, err := vault.Load(context.Background(), dir, vault.Options{})
		if err != nil {
			benchErr = err
			return
		}
		benchEng, benchErr = search.New(context.Background(), snap, analysis.New(), search.Options{})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchEng
}

// benchConnect is connectTo for benchmarks.
func benchConnect(b *testing.B, srv *Server) *mcp.ClientSession {
	b.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// benchToolCalls are typical calls of every read tool. The notes come from
// the vault: the most linked note (a hub), a note far from it, and one in
// the middle of the path order.
func benchToolCalls(e *search.Engine) []toolCall {
	g, snap := e.Graph(), e.Snapshot()
	hub, far := 0, len(snap.Notes)-1
	for i := range snap.Notes {
		if len(g.Backlinks(i)) > len(g.Backlinks(hub)) {
			hub = i
		}
	}
	hp, fp, name := snap.Notes[hub].Path, snap.Notes[far].Path, snap.Notes[hub].Name()
	mid := snap.Notes[len(snap.Notes)/2].Path
	return []toolCall{
		{tool: "obsidian_search", args: map[string]any{"query": "memory safety"}},
		{tool: "obsidian_read_note", args: map[string]any{"path": mid}},
		{tool: "obsidian_read_note", args: map[string]any{"path": mid, "format": "map"}},
		{tool: "obsidian_list_notes", args: map[string]any{}},
		{tool: "obsidian_list_notes", args: map[string]any{"tag": "type", "filter_frontmatter": map[string]any{"tags": "type/concept"}}},
		{tool: "obsidian_get_recent_edits", args: map[string]any{"since_minutes": 60 * 24 * 365 * 30}},
		{tool: "obsidian_resolve_wikilink", args: map[string]any{"wikilink": "[[" + name + "]]"}},
		{tool: "obsidian_resolve_wikilink", args: map[string]any{"wikilink": "[[No Such Note Anywhere]]"}},
		{tool: "obsidian_get_backlinks", args: map[string]any{"path": hp}},
		{tool: "obsidian_get_outbound_links", args: map[string]any{"path": hp}},
		{tool: "obsidian_get_unresolved_wikilinks", args: map[string]any{}},
		{tool: "obsidian_get_unresolved_wikilinks", args: map[string]any{"limit": 500}},
		{tool: "obsidian_get_note_neighbors", args: map[string]any{"path": hp}},
		{tool: "obsidian_find_path", args: map[string]any{"from": fp, "to": hp}},
		{tool: "obsidian_find_path", args: map[string]any{"from": fp, "to": hp, "direction": "any", "include_alternatives": true, "max_depth": 10}},
		{tool: "obsidian_find_similar", args: map[string]any{"path": hp}},
		{tool: "obsidian_context_pack", args: map[string]any{"query": "memory safety"}},
		{tool: "obsidian_list_tags", args: map[string]any{}},
		{tool: "obsidian_frontmatter_search", args: map[string]any{"key": "tags", "contains": "security"}},
		{tool: "obsidian_stats", args: map[string]any{}},
		{tool: "obsidian_search_text", args: map[string]any{"query": "memory safety"}},
		{tool: "obsidian_dataview_query", args: map[string]any{"query": "LIST FROM #security LIMIT 50"}},
		{tool: "obsidian_dataview_query", args: map[string]any{"query": "LIST FROM #security"}}, // 1,817 rows, capped at 1,000
		{tool: "obsidian_dataview_query", args: map[string]any{"query": `TABLE file.mtime WHERE contains(file.tags, "web") SORT file.mtime DESC LIMIT 20`}},
	}
}

// BenchmarkTools calls every read tool through an MCP client (in-memory
// transport, JSON encoding and output-schema validation included) and
// reports the median and 99th-percentile latency. The first call of each,
// which builds the per-snapshot structures, is outside the timing.
func BenchmarkTools(b *testing.B) {
	e := benchEngine(b)
	cs := benchConnect(b, New(e, Options{}))
	ctx := context.Background()
	for _, c := range benchToolCalls(e) {
		b.Run(c.tool, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatalf("%v %s", err, text(res))
			}
			timeCalls(b, func() error { _, err := cs.CallTool(ctx, params); return err })
		})
	}
	b.Run("resources/list", func(b *testing.B) {
		timeCalls(b, func() error { _, err := cs.ListResources(ctx, nil); return err })
	})
}

// timeCalls runs f in the benchmark loop and reports p50-ms and p99-ms.
func timeCalls(b *testing.B, f func() error) {
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkOutputPath compares the two ways a tool's structured output
// reaches the wire (output_fast.go): the go-sdk's (encode, decode into a
// generic value, validate, encode again) and the canonical encoding,
// through an in-memory MCP client for a search and a note read:
//
//	go test ./tools -run XXX -bench OutputPath -benchmem -count 5
func BenchmarkOutputPath(b *testing.B) {
	e := benchEngine(b)
	calls := benchToolCalls(e)[:2] // obsidian_search, obsidian_read_note
	ctx := context.Background()
	for _, mode := range []struct {
		name string
		sdk  bool
	}{{"sdk", true}, {"canonical", false}} {
		cs := benchConnect(b, New(e, Options{sdkOutput: mode.sdk}))
		for _, c := range calls {
			b.Run(mode.name+"/"+c.tool, func(b *testing.B) {
				params := &mcp.CallToolParams{Name: c.tool, Arguments: c.args}
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					b.Fatalf("%v %s", err, text(res))
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := cs.CallTool(ctx, params); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
