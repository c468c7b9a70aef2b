package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// bigNoteVault is a copy of the fixture plus Big.md: 20,000 lines (about
// 1 MB), every tenth with a wikilink, and Huge.md over the default size cap.
func bigNoteVault(t *testing.T) (root, body string) {
	t.Helper()
	root = vaulttest.Copy(t, "../testdata/vault")
	var b strings.Builder
	for i := range 20000 {
		if i%1000 == 0 {
			fmt.Fprintf(&b, "## Part %d\n", i/1000)
			continue
		}
		if i%10 == 1 {
			fmt.Fprintf(&b, "line %05d with [[Photosynthesis]] and filler text é\n", i)
		} else {
			fmt.Fprintf(&b, "line %05d with some more filler text to read é\n", i)
		}
	}
	body = b.String()
	writeFile(t, root, "Big.md", body)
	writeFile(t, root, "Links.md", strings.Repeat("[[a]] [[b]]\n", 20000))
	writeFile(t, root, "Huge.md", strings.Repeat("x", vault.DefaultMaxFileSize+10)+"\n")
	return root, body
}

func replyBytes(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestReadNotePages: a 1 MB, 20k-line note (its reply would be twice the
// budget: the JSON goes out as text and structured content) comes back in pages under the
// reply budget, truncated with next_offset until the last, and the pages
// put together are the body exactly.
func TestReadNotePages(t *testing.T) {
	root, body := bigNoteVault(t)
	cs := connectTo(t, New(engineAt(t, root, time.Time{}, vault.Options{MaxFileSize: 3 << 20}), Options{Version: "test", MaxFileSize: 3 << 20}))
	var got strings.Builder
	offset, pages := 0, 0
	for {
		res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Big.md", "offset": offset})
		if n := replyBytes(t, res); n > DefaultMaxReplyBytes {
			t.Fatalf("page at %d: reply %d bytes", offset, n)
		}
		out := decode[ReadNoteOutput](t, res)
		pages++
		if out.Offset != offset {
			t.Fatalf("page offset %d, asked %d", out.Offset, offset)
		}
		if len(out.Body) > readDefaultMaxBytes {
			t.Fatalf("page of %d bytes", len(out.Body))
		}
		for _, l := range out.Links {
			if l.Line < 1 || !strings.Contains(out.Body, fmt.Sprintf("line %05d", l.Line-1)) {
				t.Fatalf("page at %d lists link of line %d, outside the page", offset, l.Line)
			}
		}
		got.WriteString(out.Body)
		if !out.Truncated {
			break
		}
		if out.NextOffset <= offset || !strings.HasSuffix(out.Body, "\n") {
			t.Fatalf("next_offset %d after %d; page ends %q", out.NextOffset, offset, out.Body[len(out.Body)-10:])
		}
		offset = out.NextOffset
	}
	if got.String() != body || pages < 8 {
		t.Fatalf("%d pages rebuild %d bytes of %d", pages, got.Len(), len(body))
	}
	small := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"path": "Big.md", "max_bytes": 1024}))
	if !small.Truncated || len(small.Body) > 1024 || len(small.Links) == 0 || len(small.Links) > 5 {
		t.Fatalf("max_bytes 1024: %d bytes, %d links, truncated %v", len(small.Body), len(small.Links), small.Truncated)
	}
	// A page of short lines full of links stops at readMaxItems items.
	if res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Links.md", "max_bytes": readMaxMaxBytes}); replyBytes(t, res) > DefaultMaxReplyBytes {
		t.Fatalf("link-dense page: %d bytes", replyBytes(t, res))
	} else if out := decode[ReadNoteOutput](t, res); !out.Truncated || len(out.Links) > readMaxItems {
		t.Fatalf("link-dense page: %d links, truncated %v", len(out.Links), out.Truncated)
	}
	for _, bad := range []map[string]any{{"path": "Big.md", "offset": len(body) + 1}, {"path": "Big.md", "offset": -1}, {"path": "Big.md", "max_bytes": 10}} {
		if res := call(t, cs, "obsidian_read_note", bad); !res.IsError {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestOutboundLinksPages: 40,000 links come back in cursor pages under
// the budget, covering every link once.
func TestOutboundLinksPages(t *testing.T) {
	root, _ := bigNoteVault(t)
	cs := connectTo(t, New(engineAt(t, root, time.Time{}, vault.Options{MaxFileSize: 3 << 20}), Options{Version: "test"}))
	cursor, seen := "", 0
	for {
		args := map[string]any{"path": "Links.md"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res := call(t, cs, "obsidian_get_outbound_links", args)
		if n := replyBytes(t, res); n > DefaultMaxReplyBytes {
			t.Fatalf("page reply %d bytes", n)
		}
		out := decode[OutboundLinksOutput](t, res)
		if out.Total != 40000 {
			t.Fatalf("total %d", out.Total)
		}
		seen += len(out.Links)
		if cursor = out.NextCursor; cursor == "" {
			break
		}
	}
	if seen != 40000 {
		t.Fatalf("pages held %d links", seen)
	}
}

// TestTooLargeNoteSaysSo: a note over --max-file-size is "too large",
// never "not found", by path and by title.
func TestTooLargeNoteSaysSo(t *testing.T) {
	root, _ := bigNoteVault(t)
	cs := connectTo(t, New(engineAt(t, root, time.Time{}, vault.Options{MaxFileSize: 3 << 20}), Options{Version: "test", MaxFileSize: 3 << 20}))
	for _, args := range []map[string]any{{"path": "Huge.md"}, {"path": "Huge"}, {"title": "Huge"}} {
		res := call(t, cs, "obsidian_read_note", args)
		if !res.IsError || !strings.Contains(text(res), "too large") || strings.Contains(text(res), "not found") {
			t.Errorf("%v: %q", args, text(res))
		}
	}
}

// TestRejectedArgumentsNotEchoed: a 2 MiB argument never comes back
// whole; the error quotes at most about 200 characters of it (and any
// error reply is cut to maxErrorBytes).
func TestRejectedArgumentsNotEchoed(t *testing.T) {
	cs := connect(t)
	huge := strings.Repeat("ab", 2<<19) // 2 MiB, twice the reply budget
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"obsidian_read_note", map[string]any{"path": huge}},
		{"obsidian_read_note", map[string]any{"title": huge}},
		{"obsidian_read_note", map[string]any{"path": "Science/Photosynthesis.md", "format": huge}},
		{"obsidian_read_note", map[string]any{"path": "Science/Photosynthesis.md", "section": huge}},
		{"obsidian_search", map[string]any{"query": huge}},
		{"obsidian_list_notes", map[string]any{"sort": huge}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			if len(err.Error()) > maxErrorBytes+100 {
				t.Errorf("%s: protocol error of %d bytes", c.tool, len(err.Error()))
			}
			continue
		}
		n := replyBytes(t, res)
		if res.IsError && n > 1024 {
			t.Errorf("%s: error reply of %d bytes: %.300s", c.tool, n, text(res))
		}
		if n > DefaultMaxReplyBytes {
			t.Errorf("%s: reply of %d bytes", c.tool, n)
		}
	}
}

// TestReplyBudgetBackstop: with a small budget, a reply over it becomes
// an error that says how to page instead of the oversized reply.
func TestReplyBudgetBackstop(t *testing.T) {
	cs := connectTo(t, New(testEngine(t), Options{Version: "test", MaxReplyBytes: 600}))
	res := call(t, cs, "obsidian_read_note", map[string]any{"path": "Science/Photosynthesis.md"})
	if !res.IsError || !strings.Contains(text(res), "reply budget") || !strings.Contains(text(res), "max_bytes") {
		t.Fatalf("IsError %v: %q", res.IsError, text(res))
	}
	if n := replyBytes(t, res); n > 1000 {
		t.Fatalf("error reply %d bytes", n)
	}
}

// TestAppendRefusesGrowthPastCap: append_to_note and create_note never
// make a note larger than the size cap; the file is left as it was.
func TestAppendRefusesGrowthPastCap(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	e, err := loadEngine(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 4096
	cs := connectTo(t, New(e, Options{Version: "test", EnableWrite: true, MaxFileSize: limit, Reload: func(ctx context.Context, _ []string) (*search.Engine, error) {
		return loadEngine(ctx, root)
	}}))
	before := fileText(t, root, "Science/Photosynthesis.md")
	res := call(t, cs, "obsidian_append_to_note", map[string]any{"path": "Science/Photosynthesis.md", "content": strings.Repeat("y", limit)})
	wantWriteError(t, res, "size cap")
	if fileText(t, root, "Science/Photosynthesis.md") != before {
		t.Fatal("note changed")
	}
	res = call(t, cs, "obsidian_append_to_note", map[string]any{"path": "Science/Photosynthesis.md", "content": "small"})
	if res.IsError {
		t.Fatalf("small append refused: %s", text(res))
	}
	wantWriteError(t, call(t, cs, "obsidian_create_note", map[string]any{"path": "New.md", "content": strings.Repeat("z", limit+1)}), "size cap")
}
