package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WarmOptions bound Warm. The zero value warms nothing.
type WarmOptions struct {
	// Searches is the number of obsidian_search calls; a tenth as many
	// obsidian_read_note calls and graph calls go with them.
	Searches int
	// Parallel is the number of calls in flight at once (≤ 0: 1). Many
	// at once grow the heap as concurrent clients will.
	Parallel int
	// Budget ends the warm-up early when spent (0: no bound but the
	// call count).
	Budget time.Duration
}

// WarmStats is what Warm did.
type WarmStats struct {
	// Calls is the number of tool calls made (errors included).
	Calls int
	// Errors counts the calls whose reply was an error.
	Errors int
	// Took is the warm-up's wall time.
	Took time.Duration
}

// Warm calls the server's own search, read and graph tools in process,
// through an in-memory MCP session, before the server takes clients:
// the first calls of a fresh process pay for what later calls find
// ready (the lazily built parts of the indexes, fresh heap pages, the
// state file's pages, the tokenizer and stemmer caches, the JSON and
// schema caches). Under many clients those costs arrive at once and
// queue every call behind them. The replies are dropped; nothing is
// cached by query. Queries are words of note titles, picked at a fixed
// stride through the vault, so the warm-up is the same at every start.
// Warm starts no call after the first of opts' bounds or ctx's end, and
// reports what it did; a failed call is counted, not fatal.
func (s *Server) Warm(ctx context.Context, opts WarmOptions) (WarmStats, error) {
	start := time.Now()
	calls := s.warmCalls(opts.Searches)
	if len(calls) == 0 {
		return WarmStats{}, nil
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		return WarmStats{}, fmt.Errorf("warm-up: %w", err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "enquire-mcp-warmup", Version: s.opts.Version}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		return WarmStats{}, fmt.Errorf("warm-up: %w", err)
	}
	defer cs.Close()
	var deadline time.Time
	if opts.Budget > 0 {
		deadline = start.Add(opts.Budget)
	}
	stats := runWarm(ctx, cs, calls, max(opts.Parallel, 1), deadline)
	stats.Took = time.Since(start)
	return stats, nil
}

// runWarm makes calls with parallel workers until they are done, ctx
// ends or the deadline (if not zero) passes. Calls are not cut short at
// the deadline: no new one starts after it.
func runWarm(ctx context.Context, cs *mcp.ClientSession, calls []*mcp.CallToolParams, parallel int, deadline time.Time) WarmStats {
	next := make(chan *mcp.CallToolParams)
	var mu sync.Mutex
	var stats WarmStats
	var wg sync.WaitGroup
	for range min(parallel, len(calls)) {
		wg.Go(func() {
			for p := range next {
				res, err := cs.CallTool(ctx, p)
				mu.Lock()
				stats.Calls++
				if err != nil || res.IsError {
					stats.Errors++
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range calls {
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		select {
		case next <- p:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
	return stats
}

// warmCalls is the warm-up's calls: searches for words of two titles
// half the vault apart, with a read and a graph call after every tenth.
// Only registered tools are called.
func (s *Server) warmCalls(searches int) []*mcp.CallToolParams {
	notes := s.engine().Snapshot().Notes
	if searches <= 0 || len(notes) == 0 {
		return nil
	}
	has := map[string]bool{}
	for _, name := range s.registered {
		has[name] = true
	}
	graph := []string{"obsidian_get_backlinks", "obsidian_get_outbound_links", "obsidian_get_note_neighbors"}
	stride := max(len(notes)/searches, 1)
	var calls []*mcp.CallToolParams
	for i := range searches {
		a, b := notes[(i*stride)%len(notes)], notes[(i*stride+len(notes)/2)%len(notes)]
		if q := warmQuery(a.Title, b.Title, i); q != "" && has["obsidian_search"] {
			calls = append(calls, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q}})
		}
		if i%10 != 0 {
			continue
		}
		if has["obsidian_read_note"] {
			calls = append(calls, &mcp.CallToolParams{Name: "obsidian_read_note", Arguments: map[string]any{"path": a.Path}})
		}
		if g := graph[(i/10)%len(graph)]; has[g] {
			calls = append(calls, &mcp.CallToolParams{Name: g, Arguments: map[string]any{"path": b.Path}})
		}
	}
	return calls
}

// warmQuery is one word of title a, and for every other i one of b too.
func warmQuery(a, b string, i int) string {
	fa, fb := strings.Fields(a), strings.Fields(b)
	var words []string
	if len(fa) > 0 {
		words = append(words, fa[i%len(fa)])
	}
	if len(fb) > 0 && i%2 == 1 {
		words = append(words, fb[i%len(fb)])
	}
	return strings.Join(words, " ")
}
