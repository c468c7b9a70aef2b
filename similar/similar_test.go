package similar_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/similar"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func fixture(t *testing.T) *search.Engine {
	t.Helper()
	ctx := context.Background()
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSimilar(t *testing.T) {
	e := fixture(t)
	snap := e.Snapshot()
	id := func(p string) int {
		i, ok := snap.NoteID(p)
		if !ok {
			t.Fatalf("no note %s", p)
		}
		return i
	}
	x := similar.New(e)
	tests := []struct {
		name     string
		note     string
		limit    int
		minScore float64
		allow    func(int) bool
		top      string // "" when nothing may come back
	}{
		{"content and tags", "Software/Go Concurrency.md", 5, 0, nil, "Software/Concurrency Patterns.md"},
		{"folder filter", "Software/Go Concurrency.md", 5, 0, func(i int) bool { return strings.HasPrefix(snap.Notes[i].Path, "Projects/") }, "Projects/Crawler.md"},
		{"min score above every note", "Software/Go Concurrency.md", 5, 0.99, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, used, err := x.Similar(context.Background(), id(tt.note), tt.limit, tt.minScore, tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(used, []string{similar.SignalContent, similar.SignalTags, similar.SignalLinks, similar.SignalCoCitation, similar.SignalDirect}) {
				t.Errorf("signals used %v", used)
			}
			if tt.top == "" {
				if len(got) != 0 {
					t.Fatalf("got %d notes", len(got))
				}
				return
			}
			if len(got) == 0 || snap.Notes[got[0].ID].Path != tt.top {
				t.Fatalf("top %v, want %s", got, tt.top)
			}
			for k, n := range got {
				if n.ID == id(tt.note) || n.Score < tt.minScore || n.Score > 1 || (k > 0 && n.Score > got[k-1].Score) || (tt.allow != nil && !tt.allow(n.ID)) {
					t.Errorf("hit %d: %+v", k, n)
				}
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := x.Similar(ctx, id("Software/Go Concurrency.md"), 5, 0, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
