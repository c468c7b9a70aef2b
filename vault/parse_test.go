package vault

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// eqList compares two slices, treating nil and empty as equal.
func eqList[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantFM    map[string]any // nil: no frontmatter
		wantBody  string
		bodyLine  int
		wantTitle string
		wantWarn  bool
	}{
		{
			name:      "basic block",
			in:        "---\ntitle: T\nstatus: done\nrating: 5\n---\n# H\n",
			wantFM:    map[string]any{"title": "T", "status": "done", "rating": 5},
			wantBody:  "# H\n",
			bodyLine:  6,
			wantTitle: "T",
		},
		{
			name:      "malformed YAML keeps body after closing delimiter",
			in:        "---\ntitle: [unclosed\ntags: [a\n---\n# H\nbody\n",
			wantBody:  "# H\nbody\n",
			bodyLine:  5,
			wantTitle: "file",
			wantWarn:  true,
		},
		{
			name:      "YAML that is a list, not a map, is malformed",
			in:        "---\n- a\n- b\n---\nbody",
			wantBody:  "body",
			bodyLine:  5,
			wantTitle: "file",
			wantWarn:  true,
		},
		{
			name:      "no closing delimiter is plain text",
			in:        "---\ntitle: T\n# H\n",
			wantBody:  "---\ntitle: T\n# H\n",
			bodyLine:  1,
			wantTitle: "file",
		},
		{
			name:      "only an opening delimiter",
			in:        "---",
			wantBody:  "---",
			bodyLine:  1,
			wantTitle: "file",
		},
		{
			name:      "leading blank line means no frontmatter",
			in:        "\n---\ntitle: T\n---\n",
			wantBody:  "\n---\ntitle: T\n---\n",
			bodyLine:  1,
			wantTitle: "file",
		},
		{
			name:      "indented opening delimiter means no frontmatter",
			in:        " ---\ntitle: T\n---\n",
			wantBody:  " ---\ntitle: T\n---\n",
			bodyLine:  1,
			wantTitle: "file",
		},
		{
			name:      "four dashes are not a delimiter",
			in:        "----\ntitle: T\n----\n",
			wantBody:  "----\ntitle: T\n----\n",
			bodyLine:  1,
			wantTitle: "file",
		},
		{
			name:      "trailing spaces after delimiters",
			in:        "---  \ntitle: T\n---\t \nbody\n",
			wantFM:    map[string]any{"title": "T"},
			wantBody:  "body\n",
			bodyLine:  4,
			wantTitle: "T",
		},
		{
			name:      "byte order mark is dropped",
			in:        "\uFEFF---\ntitle: T\n---\nx",
			wantFM:    map[string]any{"title": "T"},
			wantBody:  "x",
			bodyLine:  4,
			wantTitle: "T",
		},
		{
			name:      "CRLF line endings",
			in:        "---\r\ntitle: T\r\n---\r\n# H\r\nmore\r\n",
			wantFM:    map[string]any{"title": "T"},
			wantBody:  "# H\nmore\n",
			bodyLine:  4,
			wantTitle: "T",
		},
		{
			name:      "empty block",
			in:        "---\n---\nbody",
			wantBody:  "body",
			bodyLine:  3,
			wantTitle: "file",
		},
		{
			name:      "frontmatter only, no final newline",
			in:        "---\ntags: [a]\n---",
			wantFM:    map[string]any{"tags": []any{"a"}},
			wantBody:  "",
			bodyLine:  3,
			wantTitle: "file",
		},
		{
			name:      "nested maps and lists become JSON-friendly",
			in:        "---\nmeta:\n  k: v\n  num: 2\nlist: [1, two]\n---\n",
			wantFM:    map[string]any{"meta": map[string]any{"k": "v", "num": 2}, "list": []any{1, "two"}},
			wantBody:  "",
			bodyLine:  7,
			wantTitle: "file",
		},
		{
			name:      "unquoted date stays a string",
			in:        "---\ndate: 2026-01-15\n---\n",
			wantFM:    map[string]any{"date": "2026-01-15"},
			bodyLine:  4,
			wantTitle: "file",
		},
		{
			name:      "NFD values are normalised to NFC",
			in:        "---\ntitle: Cafe\u0301\n---\nnai\u0308ve\n",
			wantFM:    map[string]any{"title": "Caf\u00e9"},
			wantBody:  "na\u00efve\n",
			bodyLine:  4,
			wantTitle: "Caf\u00e9",
		},
		{
			name:      "thematic break later in the body is not frontmatter",
			in:        "# H\n---\ntitle: T\n---\n",
			wantBody:  "# H\n---\ntitle: T\n---\n",
			bodyLine:  1,
			wantTitle: "file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warns := Parse("dir/file.md", []byte(tt.in))
			if !reflect.DeepEqual(n.Frontmatter, tt.wantFM) {
				t.Errorf("Frontmatter = %#v, want %#v", n.Frontmatter, tt.wantFM)
			}
			if n.Body != tt.wantBody {
				t.Errorf("Body = %q, want %q", n.Body, tt.wantBody)
			}
			if n.BodyLine != tt.bodyLine {
				t.Errorf("BodyLine = %d, want %d", n.BodyLine, tt.bodyLine)
			}
			if n.Title != tt.wantTitle {
				t.Errorf("Title = %q, want %q", n.Title, tt.wantTitle)
			}
			if got := len(warns) > 0; got != tt.wantWarn {
				t.Fatalf("warnings = %v, want warning: %v", warns, tt.wantWarn)
			}
			for _, w := range warns {
				if w.Path != "dir/file.md" || !strings.Contains(w.Message, "malformed frontmatter") {
					t.Errorf("warning = %+v, want a malformed-frontmatter warning for dir/file.md", w)
				}
			}
			if n.Size != int64(len(tt.in)) {
				t.Errorf("Size = %d, want %d", n.Size, len(tt.in))
			}
		})
	}
}

func TestParseMalformedYAMLStillParsesBody(t *testing.T) {
	in := "---\ntitle: [unclosed\n---\n# Head\n\nText #tag [[Link]] ^blk\n"
	n, warns := Parse("Bad.md", []byte(in))
	if len(warns) != 1 {
		t.Fatalf("warnings = %v, want exactly one", warns)
	}
	if n.Title != "Bad" || n.Aliases != nil || n.FrontmatterTags != nil {
		t.Errorf("title/aliases/fm tags = %q/%v/%v, want Bad/nil/nil", n.Title, n.Aliases, n.FrontmatterTags)
	}
	if want := []Heading{{1, "Head", 4}}; !reflect.DeepEqual(n.Headings, want) {
		t.Errorf("Headings = %v, want %v", n.Headings, want)
	}
	if want := []string{"tag"}; !reflect.DeepEqual(n.Tags, want) {
		t.Errorf("Tags = %v, want %v", n.Tags, want)
	}
	if len(n.Links) != 1 || n.Links[0].Target != "Link" || n.Links[0].Line != 6 {
		t.Errorf("Links = %+v, want [[Link]] on line 6", n.Links)
	}
	if want := []Block{{"blk", 6}}; !reflect.DeepEqual(n.Blocks, want) {
		t.Errorf("Blocks = %v, want %v", n.Blocks, want)
	}
}

func TestParseTitleAliasesTags(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		in      string
		title   string
		aliases []string
		fmTags  []string
		inline  []string
		tags    []string
	}{
		{name: "title from file name", path: "Folder/My Note.md", in: "# Other heading\n", title: "My Note"},
		{name: "title from frontmatter", path: "a.md", in: "---\ntitle: Real Title\n---\n", title: "Real Title"},
		{name: "title key is case-insensitive", path: "a.md", in: "---\nTitle: Upper Key\n---\n", title: "Upper Key"},
		{name: "title is trimmed", path: "a.md", in: "---\ntitle: '  Spaced  '\n---\n", title: "Spaced"},
		{name: "empty title falls back", path: "a.md", in: "---\ntitle: ''\n---\n", title: "a"},
		{name: "numeric title falls back", path: "a.md", in: "---\ntitle: 42\n---\n", title: "a"},
		{name: "list title falls back", path: "a.md", in: "---\ntitle: [x, y]\n---\n", title: "a"},
		{name: "NFD file name", path: "Cafe\u0301.md", in: "", title: "Caf\u00e9"},
		{name: "dotted file name keeps inner dots", path: "v1.2 notes.md", in: "", title: "v1.2 notes"},

		{name: "aliases list", path: "a.md", in: "---\naliases: [Index, Start here]\n---\n", title: "a", aliases: []string{"Index", "Start here"}},
		{name: "aliases block list", path: "a.md", in: "---\naliases:\n  - One\n  - Two\n---\n", title: "a", aliases: []string{"One", "Two"}},
		{name: "aliases comma string", path: "a.md", in: "---\naliases: One, Two\n---\n", title: "a", aliases: []string{"One", "Two"}},
		{name: "singular alias string", path: "a.md", in: "---\nalias: K8s\n---\n", title: "a", aliases: []string{"K8s"}},
		{name: "aliases key wins over alias", path: "a.md", in: "---\naliases: [A]\nalias: B\n---\n", title: "a", aliases: []string{"A"}},
		{name: "aliases de-duplicated case-insensitively", path: "a.md", in: "---\naliases: [Dup, dup, Other]\n---\n", title: "a", aliases: []string{"Dup", "Other"}},
		{name: "numeric aliases become strings", path: "a.md", in: "---\naliases: [2024, x]\n---\n", title: "a", aliases: []string{"2024", "x"}},
		{name: "null aliases", path: "a.md", in: "---\naliases:\n---\n", title: "a"},

		{name: "tags list", path: "a.md", in: "---\ntags: [a, b/c]\n---\n", title: "a", fmTags: []string{"a", "b/c"}, tags: []string{"a", "b/c"}},
		{name: "tags block list", path: "a.md", in: "---\ntags:\n  - first\n  - second\n---\n", title: "a", fmTags: []string{"first", "second"}, tags: []string{"first", "second"}},
		{name: "tags comma string", path: "a.md", in: "---\ntags: \"devops, infrastructure\"\n---\n", title: "a", fmTags: []string{"devops", "infrastructure"}, tags: []string{"devops", "infrastructure"}},
		{name: "tags space string", path: "a.md", in: "---\ntags: programming databases\n---\n", title: "a", fmTags: []string{"programming", "databases"}, tags: []string{"programming", "databases"}},
		{name: "tags mixed separators", path: "a.md", in: "---\ntags: \"a,  b\tc\"\n---\n", title: "a", fmTags: []string{"a", "b", "c"}, tags: []string{"a", "b", "c"}},
		{name: "tags scalar", path: "a.md", in: "---\ntags: cooking\n---\n", title: "a", fmTags: []string{"cooking"}, tags: []string{"cooking"}},
		{name: "hash-prefixed list values", path: "a.md", in: "---\ntags: [\"#hash-prefixed\", plain]\n---\n", title: "a", fmTags: []string{"hash-prefixed", "plain"}, tags: []string{"hash-prefixed", "plain"}},
		{name: "hash-prefixed quoted string", path: "a.md", in: "---\ntags: \"#a #b\"\n---\n", title: "a", fmTags: []string{"a", "b"}, tags: []string{"a", "b"}},
		{name: "unquoted hash is a YAML comment", path: "a.md", in: "---\ntags: #a\n---\n", title: "a"},
		{name: "singular tag key", path: "a.md", in: "---\ntag: x\n---\n", title: "a", fmTags: []string{"x"}, tags: []string{"x"}},
		{name: "tags key is case-insensitive", path: "a.md", in: "---\nTags: [X]\n---\n", title: "a", fmTags: []string{"X"}, tags: []string{"X"}},
		{name: "tags de-duplicated case-insensitively", path: "a.md", in: "---\ntags: [A, a, b]\n---\n", title: "a", fmTags: []string{"A", "b"}, tags: []string{"A", "b"}},
		{name: "empty tags string", path: "a.md", in: "---\ntags: ''\n---\n", title: "a"},
		{name: "parent tags are not added", path: "a.md", in: "---\ntags: [cooking/baking]\n---\n", title: "a", fmTags: []string{"cooking/baking"}, tags: []string{"cooking/baking"}},
		{
			name: "frontmatter first, then inline, first spelling kept",
			path: "a.md", in: "---\ntags: [Topic]\n---\n#other and #topic then #Other\n", title: "a",
			fmTags: []string{"Topic"}, inline: []string{"other", "topic"}, tags: []string{"Topic", "other"},
		},
		{name: "no frontmatter, inline only", path: "a.md", in: "text\n\n#gardening/vegetables\n", title: "a", inline: []string{"gardening/vegetables"}, tags: []string{"gardening/vegetables"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, warns := Parse(tt.path, []byte(tt.in))
			if len(warns) != 0 {
				t.Fatalf("unexpected warnings %v", warns)
			}
			if n.Title != tt.title {
				t.Errorf("Title = %q, want %q", n.Title, tt.title)
			}
			if !eqList(n.Aliases, tt.aliases) {
				t.Errorf("Aliases = %q, want %q", n.Aliases, tt.aliases)
			}
			if !eqList(n.FrontmatterTags, tt.fmTags) {
				t.Errorf("FrontmatterTags = %q, want %q", n.FrontmatterTags, tt.fmTags)
			}
			if !eqList(n.InlineTags, tt.inline) {
				t.Errorf("InlineTags = %q, want %q", n.InlineTags, tt.inline)
			}
			if !eqList(n.Tags, tt.tags) {
				t.Errorf("Tags = %q, want %q", n.Tags, tt.tags)
			}
		})
	}
}

func TestParseInlineTags(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"start of line", "#start-tag opens this line.", []string{"start-tag"}},
		{"middle of sentence", "This sentence has an #inline-tag in the middle.", []string{"inline-tag"}},
		{"nested", "filed under #area/sub/leaf today", []string{"area/sub/leaf"}},
		{"after parenthesis", "Tags can follow punctuation (#paren-tag) as well.", []string{"paren-tag"}},
		{"after comma", "one,#two", []string{"two"}},
		{"ends at punctuation", "a #tag. b #other, c #third!", []string{"tag", "other", "third"}},
		{"trailing slash dropped", "#trailing/ slash", []string{"trailing"}},
		{"underscore and dash", "#dash-and_under", []string{"dash-and_under"}},
		{"digits plus letters", "#2024-plan and #y2k", []string{"2024-plan", "y2k"}},
		{"unicode letters", "#中文 and #日本語", []string{"中文", "日本語"}},
		{"NFD tag is normalised", "#cafe\u0301", []string{"caf\u00e9"}},
		{"duplicates keep first spelling", "#a #A #a", []string{"a"}},
		{"tag inside a heading", "## Heading with #tag", []string{"tag"}},
		{"tag after a link", "[[Note#Heading]] #real", []string{"real"}},
		{"tag after a URL", "see http://x.org/#frag and #real", []string{"real"}},
		{"tag after inline code", "`#no` #yes", []string{"yes"}},
		{"several lines", "#one\ntext #two\n", []string{"one", "two"}},

		{"purely numeric", "an issue number #123 which is purely numeric", nil},
		{"HTML entity", "an HTML entity &#39; used for an apostrophe", nil},
		{"hash after a letter", "C# and F# and word#notag", nil},
		{"URL fragment", "a URL with a fragment https://example.com/page#anchor", nil},
		{"markdown anchor link", "a local anchor link [x](#local-anchor)", nil},
		{"markdown link fragment", "[x](Note.md#heading)", nil},
		{"wikilink heading", "[[Note#Heading]]", nil},
		{"wikilink alias", "[[Note|#alias]]", nil},
		{"embed heading", "![[Note#Part]]", nil},
		{"inline code", "inline code `#not-a-tag`", nil},
		{"double-backtick code", "``#not ` a-tag``", nil},
		{"heading marker", "# Heading", nil},
		{"closing hashes", "## Closed ##", nil},
		{"seven hashes", "####### Seven hashes is not a heading", nil},
		{"lone hash", "# \n#\n", nil},
		{"backtick fence", "```text\n#fenced-not-a-tag\n```", nil},
		{"tilde fence", "~~~\n#fake-tag\n~~~", nil},
		{"unclosed fence", "```\n#never\n", nil},
		{"indented code block", "para\n\n    #indented-not-a-tag\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse("t.md", []byte(tt.in))
			if !eqList(n.InlineTags, tt.want) {
				t.Errorf("InlineTags = %q, want %q", n.InlineTags, tt.want)
			}
			if !eqList(n.Tags, tt.want) {
				t.Errorf("Tags = %q, want %q", n.Tags, tt.want)
			}
		})
	}
}

func TestParseHeadings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Heading
	}{
		{"levels one to six", "# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six\n",
			[]Heading{{1, "One", 1}, {2, "Two", 2}, {3, "Three", 3}, {4, "Four", 4}, {5, "Five", 5}, {6, "Six", 6}}},
		{"seven hashes", "####### Seven hashes\n", nil},
		{"no space after hash is a tag", "#NoSpace is a tag\n", nil},
		{"closing hashes removed", "## Closed heading ##\n", []Heading{{2, "Closed heading", 1}}},
		{"long closing sequence", "# Title #####   \n", []Heading{{1, "Title", 1}}},
		{"hashes glued to text stay", "## Closed##\n", []Heading{{2, "Closed##", 1}}},
		{"inner hash kept", "## C# tips ##\n", []Heading{{2, "C# tips", 1}}},
		{"surrounding spaces trimmed", "#    Spaces   \n", []Heading{{1, "Spaces", 1}}},
		{"tab after hashes", "#\tTab\n", []Heading{{1, "Tab", 1}}},
		{"up to three spaces of indent", "   ### Indented three\n", []Heading{{3, "Indented three", 1}}},
		{"four spaces is code", "    # indented code, not a heading\n", nil},
		{"tab indent is code", "\t# tab-indented code\n", nil},
		{"indented after a paragraph", "text\n\n    # code\n", nil},
		{"code span kept in text", "# Use `go test`\n", []Heading{{1, "Use `go test`", 1}}},
		{"link kept in text", "## See [[Note]]\n", []Heading{{2, "See [[Note]]", 1}}},
		{"CRLF", "# CRLF heading\r\n\r\n## Second\r\n", []Heading{{1, "CRLF heading", 1}, {2, "Second", 3}}},
		{"backtick fence", "```\n# not\n```\n# yes\n", []Heading{{1, "yes", 4}}},
		{"tilde fence", "~~~\n# this comment is not a heading\n~~~\n", nil},
		{"fence with info string", "```go\n# not\n```\n", nil},
		{"longer fence needs as long a close", "````\n```\n# not\n````\n# yes\n", []Heading{{1, "yes", 5}}},
		{"other fence char does not close", "~~~\n```\n# not\n~~~\n# yes\n", []Heading{{1, "yes", 5}}},
		{"close with text does not close", "```\n```x\n# not\n```\n# yes\n", []Heading{{1, "yes", 5}}},
		{"indented fence", "   ```\n# not\n   ```\n# yes\n", []Heading{{1, "yes", 4}}},
		{"unclosed fence runs to the end", "# before\n```\n# not\n# not either\n", []Heading{{1, "before", 1}}},
		{"backtick in info string is not a fence", "``` a`b\n# yes\n", []Heading{{1, "yes", 2}}},
		{"tilde info string may hold backticks", "~~~ a`b\n# not\n~~~\n", nil},
		{"line numbers count frontmatter", "---\na: 1\nb: 2\n---\n# H\n\n## Sub\n", []Heading{{1, "H", 5}, {2, "Sub", 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse("h.md", []byte(tt.in))
			if !eqList(n.Headings, tt.want) {
				t.Errorf("Headings = %+v, want %+v", n.Headings, tt.want)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Block
	}{
		{"end of paragraph", "Intro paragraph. ^block-one\n", []Block{{"block-one", 1}}},
		{"trailing spaces", "Para ^abc-123  \n", []Block{{"abc-123", 1}}},
		{"tab before caret", "Para\t^tabbed\n", []Block{{"tabbed", 1}}},
		{"alone on a line", "^solo\n", []Block{{"solo", 1}}},
		{"list item", "- item ^li\n", []Block{{"li", 1}}},
		{"last one counts", "Multi ^a ^b\n", []Block{{"b", 1}}},
		{"after inline code", "`code` ^after\n", []Block{{"after", 1}}},
		{"CRLF", "Para ^crlf\r\nnext\r\n", []Block{{"crlf", 1}}},
		{"line numbers count frontmatter", "---\nx: 1\n---\none\ntwo ^b2\n", []Block{{"b2", 5}}},
		{"several", "a ^one\n\nb ^two\n", []Block{{"one", 1}, {"two", 3}}},
		{"glued to text", "Para^abc\n", nil},
		{"underscore not allowed", "Para ^ab_c\n", nil},
		{"punctuation after", "Para ^abc.\n", nil},
		{"caret only", "Para ^\n", nil},
		{"not at the end", "Para ^abc more text\n", nil},
		{"inside inline code", "`code ^abc`\n", nil},
		{"inside a fence", "```\nx ^abc\n```\n", nil},
		{"block reference link", "see [[Note#^abc]]\n", nil},
		{"inside indented code", "para\n\n    code ^abc\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse("b.md", []byte(tt.in))
			if !eqList(n.Blocks, tt.want) {
				t.Errorf("Blocks = %+v, want %+v", n.Blocks, tt.want)
			}
		})
	}
}

func TestParseLinks(t *testing.T) {
	wl := func(line int, raw, target string) Link { return Link{Raw: raw, Target: target, Line: line} }
	tests := []struct {
		name string
		in   string
		want []Link
	}{
		{"plain", "see [[Photosynthesis]].", []Link{wl(1, "[[Photosynthesis]]", "Photosynthesis")}},
		{"alias", "[[Black Holes|the void]]", []Link{{Raw: "[[Black Holes|the void]]", Target: "Black Holes", Alias: "the void", Line: 1}}},
		{"heading", "[[Sourdough Bread#Feeding the starter]]", []Link{{Raw: "[[Sourdough Bread#Feeding the starter]]", Target: "Sourdough Bread", Heading: "Feeding the starter", Line: 1}}},
		{"block", "[[Rust Ownership#^borrow-rules]]", []Link{{Raw: "[[Rust Ownership#^borrow-rules]]", Target: "Rust Ownership", Block: "borrow-rules", Line: 1}}},
		{"heading and alias", "[[Kubernetes#Pods|pods section]]", []Link{{Raw: "[[Kubernetes#Pods|pods section]]", Target: "Kubernetes", Heading: "Pods", Alias: "pods section", Line: 1}}},
		{"nested heading path", "[[Note#Part#Sub]]", []Link{{Raw: "[[Note#Part#Sub]]", Target: "Note", Heading: "Part#Sub", Line: 1}}},
		{"same note heading", "Jump to [[#Second section]].", []Link{{Raw: "[[#Second section]]", Heading: "Second section", Line: 1}}},
		{"same note block", "[[#^blk]]", []Link{{Raw: "[[#^blk]]", Block: "blk", Line: 1}}},
		{"md extension kept in target", "[[Tomatoes.md]]", []Link{wl(1, "[[Tomatoes.md]]", "Tomatoes.md")}},
		{"path", "[[Science/Plate Tectonics]]", []Link{wl(1, "[[Science/Plate Tectonics]]", "Science/Plate Tectonics")}},
		{"relative", "[[./Wikilinks]] [[../Home]]", []Link{wl(1, "[[./Wikilinks]]", "./Wikilinks"), wl(1, "[[../Home]]", "../Home")}},
		{"spaces trimmed", "[[  Spaced  |  shown  ]]", []Link{{Raw: "[[  Spaced  |  shown  ]]", Target: "Spaced", Alias: "shown", Line: 1}}},
		{"page subpath", "[[paper.pdf#page=2]]", []Link{{Raw: "[[paper.pdf#page=2]]", Target: "paper.pdf", Heading: "page=2", Line: 1}}},
		{"two on a line", "[[Tomatoes]] and the [[Garden Log]]", []Link{wl(1, "[[Tomatoes]]", "Tomatoes"), wl(1, "[[Garden Log]]", "Garden Log")}},
		{"innermost of nested brackets", "[[outer [[inner]]", []Link{wl(1, "[[inner]]", "inner")}},
		{"escaped pipe in a table", `| [[Go Concurrency\|goroutines]] | x |`, []Link{{Raw: `[[Go Concurrency\|goroutines]]`, Target: "Go Concurrency", Alias: "goroutines", Line: 1}}},
		{"escaped pipe with heading", `| [[Note#Part\|shown]] |`, []Link{{Raw: `[[Note#Part\|shown]]`, Target: "Note", Heading: "Part", Alias: "shown", Line: 1}}},
		{"empty", "[[]] and [[ ]] and [[|x]]", nil},
		{"unclosed", "[[unclosed and more", nil},

		{"embed", "![[Sourdough Bread]]", []Link{{Raw: "![[Sourdough Bread]]", Target: "Sourdough Bread", Embed: true, Line: 1}}},
		{"embed attachment", "![[diagram.png]]", []Link{{Raw: "![[diagram.png]]", Target: "diagram.png", Embed: true, Line: 1}}},
		{"embed heading", "![[Black Holes#Event horizon]]", []Link{{Raw: "![[Black Holes#Event horizon]]", Target: "Black Holes", Heading: "Event horizon", Embed: true, Line: 1}}},
		{"embed block", "![[Rust Ownership#^borrow-rules]]", []Link{{Raw: "![[Rust Ownership#^borrow-rules]]", Target: "Rust Ownership", Block: "borrow-rules", Embed: true, Line: 1}}},
		{"embed with size alias", "![[diagram.png|100]]", []Link{{Raw: "![[diagram.png|100]]", Target: "diagram.png", Alias: "100", Embed: true, Line: 1}}},

		{"markdown", "[text](Note.md)", []Link{{Raw: "[text](Note.md)", Target: "Note.md", Alias: "text", Markdown: true, Line: 1}}},
		{"markdown %20 decoded", "[tectonics](Science/Plate%20Tectonics.md)", []Link{{Raw: "[tectonics](Science/Plate%20Tectonics.md)", Target: "Science/Plate Tectonics.md", Alias: "tectonics", Markdown: true, Line: 1}}},
		{"markdown other escapes decoded", "[c](Caf%C3%A9.md)", []Link{{Raw: "[c](Caf%C3%A9.md)", Target: "Café.md", Alias: "c", Markdown: true, Line: 1}}},
		{"markdown bad escape kept", "[b](bad%zz.md)", []Link{{Raw: "[b](bad%zz.md)", Target: "bad%zz.md", Alias: "b", Markdown: true, Line: 1}}},
		{"markdown angle brackets", "[t](<My Note.md>)", []Link{{Raw: "[t](<My Note.md>)", Target: "My Note.md", Alias: "t", Markdown: true, Line: 1}}},
		{"markdown heading", "[t](Note.md#Some%20Heading)", []Link{{Raw: "[t](Note.md#Some%20Heading)", Target: "Note.md", Heading: "Some Heading", Alias: "t", Markdown: true, Line: 1}}},
		{"markdown block", "[t](Note.md#^blk)", []Link{{Raw: "[t](Note.md#^blk)", Target: "Note.md", Block: "blk", Alias: "t", Markdown: true, Line: 1}}},
		{"markdown title", `[t](Note.md "A title")`, []Link{{Raw: `[t](Note.md "A title")`, Target: "Note.md", Alias: "t", Markdown: true, Line: 1}}},
		{"markdown image", "![alt text](img.png)", []Link{{Raw: "![alt text](img.png)", Target: "img.png", Alias: "alt text", Embed: true, Markdown: true, Line: 1}}},
		{"markdown empty text", "[](Note.md)", []Link{{Raw: "[](Note.md)", Target: "Note.md", Markdown: true, Line: 1}}},
		{"https URL ignored", "[site](https://example.com/x.md)", nil},
		{"http URL ignored", "[site](http://example.com)", nil},
		{"other scheme ignored", "[f](ftp://host/file.md)", nil},
		{"mailto ignored", "[mail](mailto:someone@example.com)", nil},
		{"obsidian URI ignored", "[o](obsidian:open?vault=x)", nil},
		{"anchor ignored", "a local anchor link [x](#local-anchor)", nil},
		{"bare URL is not a link", "https://example.com/page", nil},

		{"inline code", "`[[Inline Fake]]` and [[Real]]", []Link{wl(1, "[[Real]]", "Real")}},
		{"double-backtick code", "``[[A]] ` [[B]]`` [[C]]", []Link{wl(1, "[[C]]", "C")}},
		{"inline code markdown link", "`[t](a.md)`", nil},
		{"unmatched backtick is literal", "`unclosed [[Real]]", []Link{wl(1, "[[Real]]", "Real")}},
		{"backtick fence", "```go\n// See [[Fake Link In Code]] and ![[Fake Embed]]\n```\n[[After]]", []Link{wl(4, "[[After]]", "After")}},
		{"tilde fence", "~~~\necho \"[[Fake]] ![[Fake Embed]] [x](y.md)\"\n~~~\n", nil},
		{"indented code", "para\n\n    [[Fake]] [t](fake.md)\n", nil},
		{"indented code after frontmatter", "---\na: 1\n---\n    [[Fake]]\n", nil},
		{"indented code continues over blank lines", "para\n\n    one\n\n    [[Fake]]\n", nil},
		{"indented lazy continuation is text", "para\n    [[Real]]\n", []Link{wl(2, "[[Real]]", "Real")}},
		{"indented list continuation is text", "- item\n\n    [[Real]]\n", []Link{wl(3, "[[Real]]", "Real")}},
		{"nested list item is text", "- item\n    - [[Real]]\n", []Link{wl(2, "[[Real]]", "Real")}},
		{"ordered list continuation is text", "1. step\n\n    [[Real]]\n", []Link{wl(3, "[[Real]]", "Real")}},
		{"after a list, indented is code again", "- item\n\npara\n\n    [[Fake]]\n", nil},
		{"tab-indented code", "para\n\n\t[[Fake]]\n", nil},
		{"indented code right after a heading", "# H\n    [[Fake]]\n", nil},
		{"tab-nested list item is text", "- item\n\n\t- [[Real]]\n", []Link{wl(3, "[[Real]]", "Real")}},
		{"three spaces is not code", "para\n\n   [[Real]]\n", []Link{wl(3, "[[Real]]", "Real")}},

		{"line numbers", "---\na: b\n---\n\n[[One]]\ntext\n![[Two]]\n", []Link{wl(5, "[[One]]", "One"), {Raw: "![[Two]]", Target: "Two", Embed: true, Line: 7}}},
		{"CRLF", "[[A]]\r\n[[B|b]]\r\n", []Link{wl(1, "[[A]]", "A"), {Raw: "[[B|b]]", Target: "B", Alias: "b", Line: 2}}},
		{"link in heading", "## See [[N]]", []Link{wl(1, "[[N]]", "N")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := Parse("l.md", []byte(tt.in))
			if !eqList(n.Links, tt.want) {
				t.Errorf("Links =\n%+v\nwant\n%+v", n.Links, tt.want)
			}
			for _, l := range n.Links {
				if l.Kind != "" || l.Resolved != "" {
					t.Errorf("Parse set Kind/Resolved on %+v; only the snapshot resolves", l)
				}
			}
		})
	}
}

func TestParseNormalization(t *testing.T) {
	t.Run("BOM, CRLF and NFD together", func(t *testing.T) {
		in := "\uFEFF---\r\ntags: [cafe\u0301]\r\n---\r\n# Cafe\u0301\r\n[[Nai\u0308ve]] #re\u0301sume\u0301\r\n"
		n, warns := Parse("Dir/Cafe\u0301.md", []byte(in))
		if len(warns) != 0 {
			t.Fatalf("warnings: %v", warns)
		}
		if n.Path != "Dir/Caf\u00e9.md" {
			t.Errorf("Path = %q, want NFC", n.Path)
		}
		if n.Name() != "Caf\u00e9" || n.Folder() != "Dir" {
			t.Errorf("Name/Folder = %q/%q", n.Name(), n.Folder())
		}
		if strings.Contains(n.Body, "\r") || strings.Contains(n.Body, "\u0301") || strings.Contains(n.Body, "\uFEFF") {
			t.Errorf("Body not normalised: %q", n.Body)
		}
		if want := []string{"caf\u00e9", "r\u00e9sum\u00e9"}; !reflect.DeepEqual(n.Tags, want) {
			t.Errorf("Tags = %q, want %q", n.Tags, want)
		}
		if want := []Heading{{1, "Caf\u00e9", 4}}; !reflect.DeepEqual(n.Headings, want) {
			t.Errorf("Headings = %+v, want %+v", n.Headings, want)
		}
		if len(n.Links) != 1 || n.Links[0].Target != "Na\u00efve" || n.Links[0].Line != 5 {
			t.Errorf("Links = %+v", n.Links)
		}
		if n.Size != int64(len(in)) {
			t.Errorf("Size = %d, want raw size %d", n.Size, len(in))
		}
	})
	t.Run("invalid UTF-8 is replaced", func(t *testing.T) {
		n, _ := Parse("x.md", []byte("# Bad \xff byte\n"))
		if want := []Heading{{1, "Bad \uFFFD byte", 1}}; !reflect.DeepEqual(n.Headings, want) {
			t.Errorf("Headings = %+v, want %+v", n.Headings, want)
		}
	})
	t.Run("lone CR is kept", func(t *testing.T) {
		n, _ := Parse("x.md", []byte("a\rb\n"))
		if n.Body != "a\rb\n" {
			t.Errorf("Body = %q", n.Body)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		n, warns := Parse("Empty.md", nil)
		if len(warns) != 0 || n.Title != "Empty" || n.Body != "" || n.BodyLine != 1 || n.Size != 0 ||
			n.Headings != nil || n.Links != nil || n.Tags != nil || n.Frontmatter != nil {
			t.Errorf("empty note = %+v, warnings %v", n, warns)
		}
	})
}

func TestNoteHasTag(t *testing.T) {
	n, _ := Parse("t.md", []byte("---\ntags: [Cooking/Baking, recipe]\n---\n#Area/Sub/Leaf\n"))
	tests := []struct {
		tag  string
		want bool
	}{
		{"cooking/baking", true},
		{"Cooking", true}, // parent matches nested
		{"cooking", true},
		{"#cooking", true},
		{"COOKING/BAKING", true},
		{"recipe", true},
		{"#Recipe", true},
		{"area", true},
		{"area/sub", true},
		{"area/sub/leaf", true},
		{"baking", false}, // a child name alone is not the tag
		{"cook", false},   // prefix without a slash
		{"cooking/bak", false},
		{"area/sub/leaf/deeper", false},
		{"recipes", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := n.HasTag(tt.tag); got != tt.want {
			t.Errorf("HasTag(%q) = %v, want %v (tags %q)", tt.tag, got, tt.want, n.Tags)
		}
	}
}

func TestNoteNameFolder(t *testing.T) {
	tests := []struct{ path, name, folder string }{
		{"Home.md", "Home", ""},
		{"Cooking/Sourdough Bread.md", "Sourdough Bread", "Cooking"},
		{"Archive/2019/Old Notes/Ancient.md", "Ancient", "Archive/2019/Old Notes"},
		{"a/v1.2.md", "v1.2", "a"},
		{".md", ".md", ""},
	}
	for _, tt := range tests {
		n := &Note{Path: tt.path}
		if n.Name() != tt.name || n.Folder() != tt.folder {
			t.Errorf("%q: Name/Folder = %q/%q, want %q/%q", tt.path, n.Name(), n.Folder(), tt.name, tt.folder)
		}
	}
}

func TestFrontmatterAliasBombAndNonFinite(t *testing.T) {
	// Each level refers to the previous one nine times: eight levels would
	// expand to 9^8 values.
	var b strings.Builder
	b.WriteString("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\nbody words\n")
	n, warnings := Parse("bomb.md", []byte(b.String()))
	if n.Frontmatter != nil || len(warnings) != 1 || !strings.Contains(warnings[0].Message, "expands") || !strings.Contains(n.Body, "body words") {
		t.Fatalf("frontmatter %v, warnings %v, body %q", n.Frontmatter != nil, warnings, n.Body)
	}
	n, _ = Parse("inf.md", []byte("---\na: .inf\nb: .nan\nc: 1.5\n---\n"))
	if _, err := json.Marshal(n.Frontmatter); err != nil || n.Frontmatter["c"] != 1.5 {
		t.Fatalf("frontmatter %v does not marshal: %v", n.Frontmatter, err)
	}
}
