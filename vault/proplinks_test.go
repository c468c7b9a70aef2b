package vault

import (
	"fmt"
	"slices"
	"testing"
)

func TestPropertyLinks(t *testing.T) {
	tests := []struct {
		name, text string
		// want: "key line raw" of each property link, in Links order.
		want []string
		// spans: "line start end" of each located link; unplaced: how
		// many PropertyLinkSpans cannot locate.
		spans    []string
		unplaced int
	}{
		{
			name:  "quoted string, flow list, block list",
			text:  "---\nup: \"[[A]]\"\nrel: [\"[[B|b]]\", '[[C#H]]']\nsee:\n  - \"[[D#^id]]\"\n---\nbody [[E]]\n",
			want:  []string{"up 2 [[A]]", "rel 3 [[B|b]]", "rel 3 [[C#H]]", "see 5 [[D#^id]]", " 7 [[E]]"},
			spans: []string{"2 5 10", "3 7 14", "3 18 25", "5 5 14"},
		},
		{
			name:  "several links and an embed in one string, plain scalar",
			text:  "---\npair: see [[A]] and ![[B]]\n---\n",
			want:  []string{"pair 2 [[A]]", "pair 2 ![[B]]"},
			spans: []string{"2 10 15", "2 20 26"},
		},
		{
			name: "an unquoted [[A]] is a YAML list, a comment no value, a markdown link no property link",
			text: "---\nup: [[A]]\n# [[B]]\nurl: \"[c](C.md)\"\n---\n",
		},
		{
			name:  "nested map, quoted key, CRLF and a BOM",
			text:  "\uFEFF---\r\n\"my key\": \"[[A]]\"\r\nmeta:\r\n  by: \"[[B]]\"\r\n---\r\n",
			want:  []string{"my key 2 [[A]]", "meta 4 [[B]]"},
			spans: []string{"2 11 16", "4 7 12"},
		},
		{
			name:     "a YAML escape or a folded line leaves the link unplaced, on its key's line",
			text:     "---\na: \"[[\\x41]]\"\nb: >\n  [[B]]\n  more\n---\n",
			want:     []string{"b 4 [[B]]", "a 2 [[A]]"},
			spans:    []string{"4 2 7"},
			unplaced: 1,
		},
		{
			name: "malformed YAML has no property links",
			text: "---\nup: \"[[A]]\n  - x: [\n---\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse("n.md", []byte(tt.text))
			var got []string
			for _, l := range n.Links {
				got = append(got, fmt.Sprintf("%s %d %s", l.Property, l.Line, l.Raw))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("links %q, want %q", got, tt.want)
			}
			spans, unplaced := PropertyLinkSpans(tt.text)
			var at []string
			for _, sp := range spans {
				at = append(at, fmt.Sprintf("%d %d %d", sp.Line, sp.Start, sp.End))
			}
			if !slices.Equal(at, tt.spans) || len(unplaced) != tt.unplaced {
				t.Errorf("spans %q with %d unplaced, want %q with %d", at, len(unplaced), tt.spans, tt.unplaced)
			}
		})
	}
}
