package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConcurrentClientsWhileWriting runs 20 MCP clients calling every
// read tool (the everyTool entries that do not write) against one server
// while another client creates, appends to, sets the frontmatter of and
// renames notes, each write reloading the engine and syncing the index.
// No call may fail at the protocol level, no read of a note the writes
// leave alone may fail, and at the end the written note holds every
// append. Run under -race in CI.
func TestConcurrentClientsWhileWriting(t *testing.T) {
	ctx := context.Background()
	srv := indexedWriteServer(t)
	var reads []toolCall
	for _, c := range everyTool {
		if !slices.Contains(writeToolNames, c.tool) && !slices.Contains(memoryToolNames, c.tool) {
			reads = append(reads, c)
		}
	}
	const clients, rounds, writes = 20, 2, 12
	sessions := make([]*mcp.ClientSession, clients+1)
	for i := range sessions {
		sessions[i] = connectTo(t, srv)
	}
	errs := make(chan error, clients*rounds*len(reads)+writes*4)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i := range reads {
					tc := reads[(i+c+r)%len(reads)] // clients start at different tools
					res, err := sessions[c].CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
					switch {
					case err != nil:
						errs <- fmt.Errorf("client %d %s: protocol error %v", c, tc.tool, err)
					case res.IsError:
						errs <- fmt.Errorf("client %d %s: %s", c, tc.tool, text(res))
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the writer
		defer wg.Done()
		w := sessions[clients]
		do := func(tool string, args map[string]any) {
			res, err := w.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || res.IsError {
				errs <- fmt.Errorf("writer %s(%v): %v %v", tool, args, err, res)
			}
		}
		do("obsidian_create_note", map[string]any{"path": "Inbox/Stress.md", "content": "start [[Crawler]]"})
		do("obsidian_create_note", map[string]any{"path": "Inbox/Doomed.md", "content": "to the trash"})
		do("obsidian_delete_note", map[string]any{"path": "Inbox/Doomed.md"})
		name := "Inbox/Stress.md"
		for i := range writes {
			do("obsidian_append_to_note", map[string]any{"path": name, "content": fmt.Sprintf("append %d", i)})
			do("obsidian_set_frontmatter", map[string]any{"path": name, "set": map[string]any{"round": i}})
			do("obsidian_patch_note", map[string]any{"path": name, "key": "patched", "operation": "set", "value": i})
			do("obsidian_tag_note", map[string]any{"path": name, "add": []any{fmt.Sprintf("stress/%d", i)}})
			do("obsidian_replace_in_note", map[string]any{"path": name, "find": fmt.Sprintf("append %d", i), "replace": fmt.Sprintf("append %d.", i), "case_sensitive": true})
			next := fmt.Sprintf("Inbox/Stress %d.md", i)
			do("obsidian_rename_note", map[string]any{"path": name, "new_path": next})
			name = next
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	final := text(call(t, sessions[0], "obsidian_read_note", map[string]any{"path": fmt.Sprintf("Inbox/Stress %d.md", writes-1)}))
	for i := range writes {
		if !strings.Contains(final, fmt.Sprintf("append %d", i)) {
			t.Errorf("append %d lost: %.300s", i, final)
		}
	}
}
