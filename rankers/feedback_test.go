package rankers_test

import (
	"context"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

func TestFeedback(t *testing.T) {
	c := build(t,
		"# Chain care\n\nLube the bicycle chain and wipe the derailleur and cassette.\n",         // 0
		"# Gears\n\nAdjust the derailleur limit screws and cable tension; clean the cassette.\n", // 1
		"# Bread\n\nA sourdough loaf with a long cold proof.\n",                                  // 2
		"# Rain\n\nThe rain gauge filled overnight.\n",                                           // 3
	)
	ctx := context.Background()
	req := rankers.Request{Query: "chain", Limit: 10}
	if got := notesOf(c.rank(t, req)); !slices.Equal(got, []int{0}) {
		t.Fatalf("plain TF-IDF finds %v, want only the chain note", got)
	}
	tests := []struct {
		name string
		req  rankers.Request
		fb   []int
		want []int // notes in order; nil: no candidates
	}{
		// The first hit's vocabulary (derailleur, cassette) finds the
		// gears note, which never says "chain"; the query's own note
		// stays first.
		{"expands", req, []int{0}, []int{0, 1}},
		{"no feedback notes", req, nil, nil},
		{"feedback ids out of range are ignored", req, []int{-1, 99, 0}, []int{0, 1}},
		{"unknown query", rankers.Request{Query: "zeppelin", Limit: 10}, []int{0}, nil},
		{"filters apply", rankers.Request{Query: "chain", Limit: 10, Allow: func(n int) bool { return n != 1 }}, []int{0}, []int{0}},
		{"limit", rankers.Request{Query: "chain", Limit: 1}, []int{0}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.idx.Feedback(ctx, tt.req, c.notes, tt.fb)
			if err != nil {
				t.Fatal(err)
			}
			checkSorted(t, got)
			if !slices.Equal(notesOf(got), tt.want) {
				t.Fatalf("feedback ranks %v (%+v), want %v", notesOf(got), got, tt.want)
			}
			again, _ := c.idx.Feedback(ctx, tt.req, c.notes, tt.fb)
			if !slices.Equal(got, again) {
				t.Fatalf("not deterministic: %+v then %+v", got, again)
			}
		})
	}
}

func TestFeedbackCancelled(t *testing.T) {
	c := build(t, "# A\n\nchain lube\n", "# B\n\nlube oil\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.idx.Feedback(ctx, rankers.Request{Query: "chain", Limit: 5}, c.notes, []int{0}); err == nil {
		t.Fatal("a cancelled context gave no error")
	}
}
