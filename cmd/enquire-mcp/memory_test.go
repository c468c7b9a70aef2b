package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/service/servicetest"
	"github.com/enquire-mcp/enquire-mcp/tools"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// TestMemoryToolsUpdateTheIndexIncrementally: serve --enable-memory over
// a copy of the fixture with the persistent index; remember and forget go
// through the server's incremental reload, after which the served engine
// and index equal a fresh start's, and BM25 finds (then no longer finds)
// the memory.
func TestMemoryToolsUpdateTheIndexIncrementally(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "..", "testdata", "vault"))
	l := freshEngine(t, root)
	sf := serveFlags{enableMemory: true, memoryFolder: "Memory"}
	srv, _ := sf.newServer(ctx, l, "", slog.New(slog.NewTextHandler(io.Discard, nil)), "stdio")
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callTool := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatal(err)
		}
	}
	memories := func(query string) []tools.SearchMatch {
		var out tools.SearchOutput
		callTool("obsidian_search", map[string]any{"query": query, "types": []any{"memory"}}, &out)
		return out.Matches
	}
	same := func(when string) {
		t.Helper()
		want := freshEngine(t, root)
		if d := enginetest.Diff(ctx, l.Engine(), want.Engine(), append([]string{"pangolin"}, enginetest.Queries...)); d != "" {
			t.Fatalf("%s: served engine differs from a fresh start: %s", when, d)
		}
		if d := servicetest.IndexDiff(t, l, want); d != "" {
			t.Fatalf("%s: served index differs from a fresh one: %s", when, d)
		}
	}

	var rem tools.RememberOutput
	callTool("obsidian_remember", map[string]any{"key": "pet", "fact": "The user keeps a pangolin named Pip."}, &rem)
	if rem.RefreshError != "" {
		t.Fatal(rem.RefreshError)
	}
	hits := memories("pangolin")
	// Other memories may follow, found by pseudo-relevance feedback alone.
	if len(hits) == 0 || hits[0].MemoryKey != "pet" || hits[0].PerSignal.BM25 == nil || lexicalHits(hits) != 1 {
		t.Fatalf("after remember: %+v", hits)
	}
	same("after remember")

	var gone tools.ForgetOutput
	callTool("obsidian_forget", map[string]any{"key": "pet"}, &gone)
	if hits := memories("pangolin"); len(hits) != 0 {
		t.Fatalf("after forget: %+v", hits)
	}
	same("after forget")
}

// lexicalHits counts the hits that a lexical signal found (not only the
// feedback pass).
func lexicalHits(hits []tools.SearchMatch) int {
	n := 0
	for _, h := range hits {
		if h.PerSignal.BM25 != nil || h.PerSignal.TFIDF != nil {
			n++
		}
	}
	return n
}
