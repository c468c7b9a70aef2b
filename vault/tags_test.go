package vault

import (
	"slices"
	"testing"
)

func TestFoldTag(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"#Project/A", "project/a"},
		{"  ##tag/ ", "tag"},
		{"Cafe\u0301", "café"}, // NFD → NFC
		{"ÉTÉ", "été"},
		{"#", ""},
	} {
		if got := FoldTag(tt.in); got != tt.want {
			t.Errorf("FoldTag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTagParents(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"a", nil},
		{"a/b/c", []string{"a", "a/b"}},
		{"a//b", []string{"a"}},
		{"日本/東京", []string{"日本"}},
	} {
		if got := TagParents(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("TagParents(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTags(t *testing.T) {
	parse := func(path, text string) *Note {
		n, _ := Parse(path, []byte(text))
		return n
	}
	snap := NewSnapshot("/v", []*Note{
		parse("a.md", "---\ntags: [Proj/X, misc]\n---\nbody #proj/y #MISC\n"),
		parse("b.md", "text #proj/x/deep and #proj\n"),
		parse("sub/c.md", "---\ntags: proj\n---\n#Other\n"),
		parse("d.md", "no tags at all\n"),
	}, nil, nil)
	x := NewTags(snap)
	want := []TagCount{
		{Tag: "misc", Count: 1, Direct: 1, Frontmatter: 1},
		{Tag: "other", Count: 1, Direct: 1, Inline: 1},
		// a: fm (proj/x), b: inline, c: fm → 3 notes, each once.
		{Tag: "proj", Count: 3, Direct: 2, Frontmatter: 2, Inline: 1, Children: 2},
		{Tag: "proj/x", Count: 2, Direct: 1, Frontmatter: 1, Inline: 1, Children: 1},
		{Tag: "proj/x/deep", Count: 1, Direct: 1, Inline: 1},
		{Tag: "proj/y", Count: 1, Direct: 1, Inline: 1},
	}
	if got := x.Counts(nil); !slices.Equal(got, want) {
		t.Fatalf("Counts(nil) =\n%+v\nwant\n%+v", got, want)
	}
	if x.Len() != len(want) {
		t.Errorf("Len = %d", x.Len())
	}
	onlyB := x.Counts(func(i int) bool { return snap.Notes[i].Path == "b.md" })
	wantB := []TagCount{
		{Tag: "proj", Count: 1, Direct: 1, Inline: 1, Children: 1},
		{Tag: "proj/x", Count: 1, Inline: 1, Children: 1}, // only through proj/x/deep
		{Tag: "proj/x/deep", Count: 1, Direct: 1, Inline: 1},
	}
	if !slices.Equal(onlyB, wantB) {
		t.Fatalf("Counts(b) =\n%+v\nwant\n%+v", onlyB, wantB)
	}
	if got := NewTags(NewSnapshot("/v", nil, nil, nil)).Counts(nil); len(got) != 0 {
		t.Fatalf("empty vault: %+v", got)
	}
}
