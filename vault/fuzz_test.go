package vault

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzFrontmatter: for any text, splitting off the frontmatter never
// panics, the body is a suffix of the text starting on the line reported,
// the decoded map can be sent as JSON (tools return it), and a whole
// note parses.
func FuzzFrontmatter(f *testing.F) {
	for _, seed := range []string{
		"---\ntitle: A\ntags: [a, b]\n---\nbody\n", "---\n---\n", "---\nx: [\n---\nbody",
		"---\na: &x [1,2]\nb: *x\n---\n", "---\nn: .nan\ni: .inf\nbig: 18446744073709551616\n---\n",
		"---  \nk: v\n--- \nrest", "--- \n{a: 1}\n---\n", "no frontmatter\n---\nx: 1\n---\n",
		"---\ndate: 2024-01-02\nyes: no\n---\n", "---\n? [a]\n: b\n---\n", "---\nk: \"\\u00e9\"\n---\nA\u0301",
		"---\r\nk: v\r\n---\r\nbody", "---\n- list\n---\n", "---\nk: |\n  multi\n  line\n---\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fm, body, line, _ := splitFrontmatter(text)
		if !strings.HasSuffix(text, body) {
			t.Fatalf("body %q is not a suffix of the text", body)
		}
		if want := 1 + strings.Count(text[:len(text)-len(body)], "\n"); line != want {
			t.Fatalf("body line %d, want %d", line, want)
		}
		if fm != nil {
			if _, err := json.Marshal(fm); err != nil {
				t.Fatalf("frontmatter %#v is not JSON: %v", fm, err)
			}
		}
		n, _ := Parse("fuzz.md", []byte(text))
		if n == nil {
			t.Fatal("Parse returned no note")
		}
	})
}

// FuzzWikilinks: for any line, link parsing never panics, every link is
// written in the line as its Raw text, carries the line number, and the
// blanked line keeps the byte length (offsets stay valid).
func FuzzWikilinks(f *testing.F) {
	for _, seed := range []string{
		"[[Note]]", "![[Embed.png|100]]", "[[Note#Heading|Alias]]", "[[Note#^block]]", "[[a|b|c]]",
		"[text](Other%20Note.md#h)", "[x](https://example.com) [[real]]", "[[", "]]", "[[]]", "[[|]]",
		"[[a]][[b]]![[c]]", "[t](<a b.md>)", "[[é\u0301]]", "[[#only heading]]", "\\[[escaped]]", "[[a\\|b]]",
		"[[[triple]]]", "![](img.png)", "[[x]] #tag [[y#z]]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return // one line at a time, as the parser is called
		}
		links, rest := parseLinks(line, 7)
		if len(rest) != len(line) {
			t.Fatalf("blanked line is %d bytes, the line %d", len(rest), len(line))
		}
		for _, l := range links {
			if l.Line != 7 {
				t.Fatalf("link %+v on line %d", l, l.Line)
			}
			if !strings.Contains(line, l.Raw) || l.Raw == "" {
				t.Fatalf("raw %q not in line %q", l.Raw, line)
			}
		}
		if n, _ := Parse("fuzz.md", []byte(line)); n == nil {
			t.Fatal("Parse returned no note")
		}
	})
}
