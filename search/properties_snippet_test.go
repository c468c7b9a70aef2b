package search

import (
	"strings"
	"testing"
	"time"
)

func TestPropertiesSnippet(t *testing.T) {
	tests := []struct {
		name string
		fm   map[string]any
		want string
	}{
		{"none", nil, ""},
		{"sorted keys, list joined", map[string]any{"tags": []any{"stub", "idea"}, "status": "empty"}, "status: empty; tags: stub, idea"},
		{"date and number", map[string]any{"due": time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "rating": 4}, "due: 2026-03-01; rating: 4"},
		{"null", map[string]any{"owner": nil}, "owner: "},
		{"clipped", map[string]any{"long": strings.Repeat("é", 400)}, "long: " + strings.Repeat("é", snippetChars-6) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := propertiesSnippet(tt.fm); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
