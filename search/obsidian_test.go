package search

import (
	"context"
	"slices"
	"testing"
)

// TestObsidianExclusions checks the notes Obsidian keeps out of its own
// search (Excluded files, the templates folder) are left out by default,
// before the cut to limit, and come back with IncludeExcluded.
func TestObsidianExclusions(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]string
		want     []string // paths found by "orchard" by default
	}{
		{"a Templates folder without settings", nil, []string{"Archive/old orchard.md", "orchard.md"}},
		{"templates.json names another folder", map[string]string{".obsidian/templates.json": `{"folder": "Archive"}`},
			[]string{"Templates/Orchard Template.md", "orchard.md"}},
		{"excluded files and the default templates", map[string]string{".obsidian/app.json": `{"userIgnoreFilters": ["Archive/"]}`},
			[]string{"orchard.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "orchard.md", "# Orchard\n\nPruning the orchard in winter.\n")
			write(t, dir, "Templates/Orchard Template.md", "# {{title}}\n\norchard orchard orchard: {{date}}\n")
			write(t, dir, "Archive/old orchard.md", "An old orchard note.\n")
			for p, text := range tt.settings {
				write(t, dir, p, text)
			}
			e, err := newEngine(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			got := hitPaths(mustSearch(t, e, Request{Query: "orchard", Limit: 1}))
			if len(got) != 1 || !slices.Contains(tt.want, got[0]) {
				t.Fatalf("limit 1: %v, want one of %v", got, tt.want)
			}
			got = hitPaths(mustSearch(t, e, Request{Query: "orchard"}))
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("default: %v, want %v", got, tt.want)
			}
			all := hitPaths(mustSearch(t, e, Request{Query: "orchard", IncludeExcluded: true}))
			if len(all) != 3 {
				t.Fatalf("include_excluded: %v, want all 3", all)
			}
		})
	}
}
