package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchPassagesAndGetChunk(t *testing.T) {
	cs := connect(t)
	out := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "goroutine channels select", "max_passages": 2}))
	if len(out.Matches) == 0 || out.Matches[0].Path != "Software/Go Concurrency.md" {
		t.Fatalf("matches %+v", out.Matches)
	}
	for _, m := range out.Matches {
		if len(m.Passages) == 0 || len(m.Passages) > 2 {
			t.Fatalf("%s: %d passages", m.Path, len(m.Passages))
		}
	}
	p := out.Matches[0].Passages[0]
	raw, err := os.ReadFile(filepath.Join("../testdata/vault", out.Matches[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(raw[p.CharStart:p.CharEnd]), "\r\n", "\n"); got != p.Text {
		t.Fatalf("file[%d:%d] = %q, passage %q", p.CharStart, p.CharEnd, got, p.Text)
	}
	chunk := decode[GetChunkOutput](t, call(t, cs, "obsidian_get_chunk", map[string]any{"chunk_id": p.ChunkID, "context": 1}))
	if chunk.ChunkID != p.ChunkID || chunk.Text != p.Text || chunk.CharStart != p.CharStart || chunk.Path != out.Matches[0].Path {
		t.Fatalf("get_chunk %+v, passage %+v", chunk, p)
	}
	if chunk.ChunkCount < 2 || len(chunk.Before)+len(chunk.After) != 1 {
		t.Fatalf("context 1 of %d chunks: before %d after %d", chunk.ChunkCount, len(chunk.Before), len(chunk.After))
	}
}

// TestSearchWithoutNewArgumentsIsUnchanged: a request without the new
// arguments gets no new keys in its reply.
func TestSearchWithoutNewArgumentsIsUnchanged(t *testing.T) {
	cs := connect(t)
	res := call(t, cs, "obsidian_search", map[string]any{"query": "goroutine channels", "limit": 3})
	raw, _ := json.Marshal(res.StructuredContent)
	for _, key := range []string{"passages", "next_cursor", "related"} {
		if strings.Contains(string(raw), `"`+key+`"`) {
			t.Errorf("reply carries %s without being asked: %s", key, raw)
		}
	}
}

func TestSearchCursorAndExpand(t *testing.T) {
	cs := connect(t)
	first := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "notes link", "limit": 2, "cursor": ""}))
	if first.NextCursor == "" || len(first.Matches) != 2 {
		t.Fatalf("first page %+v", first)
	}
	second := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "notes link", "limit": 2, "cursor": first.NextCursor}))
	all := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "notes link", "limit": 4}))
	if len(second.Matches) != 2 || second.Matches[0].Path != all.Matches[2].Path || second.Matches[1].Path != all.Matches[3].Path {
		t.Fatalf("second page %+v, want matches 3-4 of %+v", second.Matches, all.Matches)
	}
	ex := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "polite web crawler", "limit": 1, "expand": true}))
	if len(ex.Related) == 0 {
		t.Fatal("expand found no related note for the crawler")
	}
	for _, r := range ex.Related {
		if r.From != ex.Matches[0].Path || r.Via == "" || r.Path == ex.Matches[0].Path {
			t.Errorf("related %+v", r)
		}
	}
}

func TestSearchExtrasBadInput(t *testing.T) {
	cs := connect(t)
	other := decode[SearchOutput](t, call(t, cs, "obsidian_search", map[string]any{"query": "sourdough", "limit": 1, "cursor": ""}))
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"max_passages 0", "obsidian_search", map[string]any{"query": "go", "max_passages": 0}, "max_passages"},
		{"max_passages 1000", "obsidian_search", map[string]any{"query": "go", "max_passages": 1000}, "max_passages"},
		{"min_similarity -1", "obsidian_search", map[string]any{"query": "go", "min_similarity": -1}, "min_similarity"},
		{"min_similarity 2", "obsidian_search", map[string]any{"query": "go", "min_similarity": 2}, "min_similarity"},
		{"cursor of another query", "obsidian_search", map[string]any{"query": "goroutine", "cursor": other.NextCursor}, "cursor belongs to another query"},
		{"unknown chunk id", "obsidian_get_chunk", map[string]any{"chunk_id": "Nowhere.md#0@00000000"}, `chunk_id "Nowhere.md#0@00000000" names a note that is not in the vault`},
		{"stale chunk id", "obsidian_get_chunk", map[string]any{"chunk_id": "Software/Go Concurrency.md#0@00000000"}, `is stale: note "Software/Go Concurrency.md"`},
		{"malformed chunk id", "obsidian_get_chunk", map[string]any{"chunk_id": "Go Concurrency"}, "not of the form"},
		{"context 99", "obsidian_get_chunk", map[string]any{"chunk_id": "Software/Go Concurrency.md#0@f1f9f672", "context": 99}, "context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Fatalf("IsError=%v text=%q, want an error mentioning %q", res.IsError, text(res), tt.want)
			}
		})
	}
}
