package search

import (
	"errors"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestFrontmatterFilterAPI(t *testing.T) {
	n := &vault.Note{Path: "a/b.md", Frontmatter: map[string]any{"Status": "Done", "year": 2024, "tags": []any{"#x", "y"}},
		FrontmatterTags: []string{"x", "y"}} // as the parser fills them
	for _, tt := range []struct {
		raw  map[string]any
		want bool
	}{
		{nil, true},
		{map[string]any{"status": " done "}, true},
		{map[string]any{"year": "2024.0"}, true},
		{map[string]any{"tags": "x"}, true},
		{map[string]any{"tags": []any{"z", "y"}}, true},
		{map[string]any{"status": "open"}, false},
		{map[string]any{"missing": true}, false},
	} {
		f, err := ParseFrontmatterFilter(tt.raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Match(n); got != tt.want || f.Empty() != (len(tt.raw) == 0) {
			t.Errorf("%v: match %v empty %v", tt.raw, got, f.Empty())
		}
	}
	if _, err := ParseFrontmatterFilter(map[string]any{"k": []any{}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty array: %v", err)
	}
	var zero FrontmatterFilter
	if !zero.Match(n) || !zero.Empty() {
		t.Error("the zero filter must match everything")
	}
}

func TestFolderExport(t *testing.T) {
	for _, tt := range []struct {
		folder, want string
		ok           bool
	}{
		{"", "", true}, {"./Projects/", "Projects", true}, {"/a/b", "a/b", true}, {"../x", "", false},
	} {
		got, err := NormalizeFolder(tt.folder)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("NormalizeFolder(%q) = %q, %v", tt.folder, got, err)
		}
	}
	if !InFolder("Projects/a.md", "projects") || InFolder("Projects2/a.md", "Projects") || !InFolder("x.md", "") {
		t.Error("InFolder")
	}
}
