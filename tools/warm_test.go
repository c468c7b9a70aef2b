package tools

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestWarm runs the warm-up on the fixture vault: it makes the calls its
// bounds allow, through the real tools, without errors, and calls only
// registered tools.
func TestWarm(t *testing.T) {
	graph := "obsidian_get_backlinks,obsidian_get_outbound_links,obsidian_get_note_neighbors"
	tests := []struct {
		name      string
		opts      WarmOptions
		disabled  []string
		wantCalls int
	}{
		{"nothing asked", WarmOptions{}, nil, 0},
		{"20 searches, 2 reads, 2 graph calls", WarmOptions{Searches: 20, Parallel: 4}, nil, 24},
		{"one at a time", WarmOptions{Searches: 11, Parallel: 1}, nil, 15},
		{"reads and graph tools disabled", WarmOptions{Searches: 20, Parallel: 4}, []string{"obsidian_read_note", graph}, 20},
		{"budget spent before the first call", WarmOptions{Searches: 20, Parallel: 4, Budget: time.Nanosecond}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var disabled []string
			for _, d := range tt.disabled {
				disabled = append(disabled, strings.Split(d, ",")...)
			}
			srv := New(testEngine(t), Options{Version: "test", DisabledTools: disabled})
			st, err := srv.Warm(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if st.Calls != tt.wantCalls || st.Errors != 0 {
				t.Fatalf("calls %d (want %d), errors %d (want 0)", st.Calls, tt.wantCalls, st.Errors)
			}
			if tt.wantCalls > 0 && st.Took <= 0 {
				t.Fatalf("took %v", st.Took)
			}
		})
	}
}

// TestWarmCallsAreTheSameAtEveryStart checks the warm-up's calls depend
// only on the vault: title words at a fixed stride.
func TestWarmCallsAreTheSameAtEveryStart(t *testing.T) {
	srv := New(testEngine(t), Options{Version: "test"})
	a, b := srv.warmCalls(30), srv.warmCalls(30)
	if len(a) != 30+3+3 || len(a) != len(b) {
		t.Fatalf("%d and %d calls, want 36", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Arguments.(map[string]any)["query"] != b[i].Arguments.(map[string]any)["query"] ||
			a[i].Arguments.(map[string]any)["path"] != b[i].Arguments.(map[string]any)["path"] {
			t.Fatalf("call %d differs: %+v, %+v", i, a[i], b[i])
		}
	}
}

func TestWarmQuery(t *testing.T) {
	tests := []struct {
		a, b string
		i    int
		want string
	}{
		{"Sourdough Starter", "Tomato Blight", 0, "Sourdough"},
		{"Sourdough Starter", "Tomato Blight", 1, "Starter Blight"},
		{"Sourdough Starter", "", 3, "Starter"},
		{"", "Tomato Blight", 1, "Blight"},
		{"", "", 2, ""},
	}
	for _, tt := range tests {
		if got := warmQuery(tt.a, tt.b, tt.i); got != tt.want {
			t.Errorf("warmQuery(%q, %q, %d) = %q, want %q", tt.a, tt.b, tt.i, got, tt.want)
		}
	}
}
