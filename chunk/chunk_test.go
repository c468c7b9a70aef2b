package chunk

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func parse(t *testing.T, text string) *vault.Note {
	t.Helper()
	n, warns := vault.Parse("notes/test.md", []byte(text))
	if len(warns) > 0 {
		t.Fatalf("vault.Parse warnings: %v", warns)
	}
	return n
}

// words returns k distinct-looking words (k tokens).
func words(k int) string {
	w := make([]string, k)
	for i := range w {
		w[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(w, " ")
}

// checkInvariants asserts what must hold for every Split result; raw is the
// file text (LF line endings) the note was parsed from.
func checkInvariants(t *testing.T, raw string, n *vault.Note, opts Options, chunks []Chunk) {
	t.Helper()
	opts = opts.withDefaults()
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	fileLines := strings.Split(raw, "\n")
	for i, c := range chunks {
		if c.Index != i {
			t.Errorf("chunk %d has Index %d", i, c.Index)
		}
		if c.Start < 0 || c.Start > c.End || c.End > len(n.Body) {
			t.Fatalf("chunk %d: bad byte range [%d,%d) of %d", i, c.Start, c.End, len(n.Body))
		}
		if c.LineStart < 1 || c.LineStart > c.LineEnd {
			t.Fatalf("chunk %d: bad lines %d-%d", i, c.LineStart, c.LineEnd)
		}
		if c.End > c.Start || c.LineEnd <= len(fileLines) {
			// Whole lines, except that an over-long line may be cut
			// between words at either end.
			want := strings.Join(fileLines[c.LineStart-1:c.LineEnd], "\n")
			cutOK := func(off int) bool {
				return off <= 0 || off >= len(n.Body) || strings.ContainsRune(" \n", rune(n.Body[off-1])) || n.Body[off] == ' ' || n.Body[off] == '\n' || !isASCIIByte(n.Body[off-1])
			}
			piece := strings.Contains(want, c.Text(n)) && cutOK(c.Start) && cutOK(c.End) && c.Text(n) != ""
			if c.Text(n) != want && !piece {
				t.Errorf("chunk %d: Text = %q, but file lines %d-%d are %q", i, c.Text(n), c.LineStart, c.LineEnd, want)
			}
		}
		if c.Tokens != Tokens(c.Text(n)) {
			t.Errorf("chunk %d: Tokens = %d, Tokens(Text) = %d", i, c.Tokens, Tokens(c.Text(n)))
		}
		if c.Tokens > opts.MaxTokens {
			t.Errorf("chunk %d: %d tokens > MaxTokens %d (lines %d-%d)", i, c.Tokens, opts.MaxTokens, c.LineStart, c.LineEnd)
		}
		if i > 0 {
			p := chunks[i-1]
			if c.Start < p.End || c.LineStart < p.LineEnd || (c.LineStart == p.LineEnd && c.Start == p.Start) {
				t.Errorf("chunk %d (lines %d-%d) overlaps or precedes chunk %d (lines %d-%d)", i, c.LineStart, c.LineEnd, i-1, p.LineStart, p.LineEnd)
			}
		}
	}
	// Every non-space byte of the body is in exactly one chunk.
	for off, r := range n.Body {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			continue
		}
		in := 0
		for _, c := range chunks {
			if c.Start <= off && off < c.End {
				in++
			}
		}
		if in != 1 {
			t.Errorf("body byte %d (%q) is in %d chunks", off, r, in)
			return
		}
	}
}

func isASCIIByte(b byte) bool { return b < 0x80 }

// span is the comparable part of a chunk.
type span struct {
	Lines    [2]int
	Headings []string
	Tokens   int
}

func spans(chunks []Chunk) []span {
	out := make([]span, len(chunks))
	for i, c := range chunks {
		out[i] = span{[2]int{c.LineStart, c.LineEnd}, c.Headings, c.Tokens}
	}
	return out
}

func TestSplit(t *testing.T) {
	small := Options{MaxTokens: 100, MinTokens: 10}
	tests := []struct {
		name string
		text string
		opts Options
		want []span
	}{
		{"empty body", "", Options{}, []span{{[2]int{1, 1}, nil, 0}}},
		{"blank body", "\n\n   \n\t\n", Options{}, []span{{[2]int{1, 1}, nil, 0}}},
		{"frontmatter only", "---\ntitle: T\n---\n", Options{}, []span{{[2]int{4, 4}, nil, 0}}},
		{"small note", "# Title\n\nSome text here.\n\n- a list\n- of items\n", Options{},
			[]span{{[2]int{1, 6}, []string{"Title"}, 11}}},
		{"small note after frontmatter",
			"---\ntags: [x]\n---\n\n# Title\nbody text\n", Options{},
			[]span{{[2]int{5, 6}, []string{"Title"}, 4}}},
		{"preamble has no headings", "intro " + words(19) + "\n\n# H\ntext\n", small,
			[]span{{[2]int{1, 1}, nil, 20}, {[2]int{3, 4}, []string{"H"}, 3}}},
		{"split at heading once MinTokens reached",
			"# A\n" + words(8) + "\n\n## B\n" + words(8) + "\n", small,
			[]span{{[2]int{1, 2}, []string{"A"}, 10}, {[2]int{4, 5}, []string{"A", "B"}, 10}}},
		{"small sections merge across headings",
			"# A\nx\n\n## B\nx\n\n## C\nx\n\n## D\nx\n\n## E\nx\n", small,
			[]span{{[2]int{1, 11}, []string{"A"}, 12}, {[2]int{13, 14}, []string{"A", "E"}, 3}}},
		{"paragraphs merge up to MaxTokens",
			strings.Repeat(words(10)+"\n\n", 5), Options{MaxTokens: 25},
			[]span{{[2]int{1, 3}, nil, 20}, {[2]int{5, 7}, nil, 20}, {[2]int{9, 9}, nil, 10}}},
		{"paragraph exactly filling MaxTokens",
			words(10) + "\n\n" + words(15) + "\n\n" + words(1), Options{MaxTokens: 25},
			[]span{{[2]int{1, 3}, nil, 25}, {[2]int{5, 5}, nil, 1}}},
		{"oversize paragraph split at lines",
			"intro\n\n" + strings.Repeat(words(5)+"\n", 10) + "\nafter\n", Options{MaxTokens: 12},
			[]span{
				{[2]int{1, 1}, nil, 1},
				{[2]int{3, 4}, nil, 10}, {[2]int{5, 6}, nil, 10}, {[2]int{7, 8}, nil, 10},
				{[2]int{9, 10}, nil, 10}, {[2]int{11, 12}, nil, 10},
				{[2]int{14, 14}, nil, 1},
			}},
		{"oversize heading section keeps its path",
			"# Big\n" + strings.Repeat(words(4)+"\n", 4), Options{MaxTokens: 9},
			[]span{{[2]int{1, 2}, []string{"Big"}, 6}, {[2]int{3, 4}, []string{"Big"}, 8}, {[2]int{5, 5}, []string{"Big"}, 4}}},
		{"single huge line is cut between words", "small\n\n" + words(25) + "\n\nsmall", Options{MaxTokens: 10},
			[]span{{[2]int{1, 1}, nil, 1}, {[2]int{3, 3}, nil, 10}, {[2]int{3, 3}, nil, 10}, {[2]int{3, 3}, nil, 5}, {[2]int{5, 5}, nil, 1}}},
		{"single huge line is cut after sentences", "One two three. Four five six seven. Eight nine ten eleven twelve.", Options{MaxTokens: 8, MinTokens: 1},
			[]span{{[2]int{1, 1}, nil, 7}, {[2]int{1, 1}, nil, 5}}},
		{"heading levels pop",
			"# H1\na\n## H2\nb\n### H3\nc\n## H2b\nd\n### H3b\ne\n# Top\nf\n### Deep\ng\n## Mid\nh\n",
			Options{MaxTokens: 100, MinTokens: 1},
			[]span{
				{[2]int{1, 2}, []string{"H1"}, 3},
				{[2]int{3, 4}, []string{"H1", "H2"}, 3},
				{[2]int{5, 6}, []string{"H1", "H2", "H3"}, 3},
				{[2]int{7, 8}, []string{"H1", "H2b"}, 3},
				{[2]int{9, 10}, []string{"H1", "H2b", "H3b"}, 3},
				{[2]int{11, 12}, []string{"Top"}, 3},
				{[2]int{13, 14}, []string{"Top", "Deep"}, 3},
				{[2]int{15, 16}, []string{"Top", "Mid"}, 3},
			}},
		{"heading text cleaned", "## Title ##\nx\n", Options{}, []span{{[2]int{1, 2}, []string{"Title"}, 4}}},
		{"heading inside code is not a heading",
			"# Real\nx\n\n```sh\n# comment\n```\n\n## Next\ny\n", Options{MaxTokens: 100, MinTokens: 1},
			[]span{{[2]int{1, 6}, []string{"Real"}, 7}, {[2]int{8, 9}, []string{"Real", "Next"}, 3}}},
		{"cjk tokens", "# 見出し\n東京タワーの説明\n\n## 次\n한국어 검색\n", Options{MaxTokens: 100, MinTokens: 1},
			[]span{{[2]int{1, 2}, []string{"見出し"}, 12}, {[2]int{4, 5}, []string{"見出し", "次"}, 7}}},
		{"crlf line endings", "# A\r\none\r\n\r\n# B\r\ntwo\r\n", Options{MaxTokens: 100, MinTokens: 1},
			[]span{{[2]int{1, 2}, []string{"A"}, 3}, {[2]int{4, 5}, []string{"B"}, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := parse(t, tt.text)
			got := Split(n, tt.opts)
			checkInvariants(t, strings.ReplaceAll(tt.text, "\r\n", "\n"), n, tt.opts, got)
			if g := spans(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("Split:\n got %+v\nwant %+v", g, tt.want)
				for _, c := range got {
					t.Logf("  %d: %q", c.Index, c.Text(n))
				}
			}
		})
	}
}

func TestEmptyChunk(t *testing.T) {
	n := parse(t, "---\ntitle: T\n---\n")
	got := Split(n, Options{})
	want := []Chunk{{Index: 0, Start: 0, End: 0, LineStart: 4, LineEnd: 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Split = %+v, want %+v", got, want)
	}
	if s := got[0].Text(n); s != "" {
		t.Errorf("Text = %q, want empty", s)
	}
}

func TestLinesAfterFrontmatter(t *testing.T) {
	raw := "---\ntitle: Lines\ntags:\n  - a\n---\n\n# Intro\nfirst paragraph\n\n## Part\nsecond paragraph\nwith two lines\n"
	n := parse(t, raw)
	if n.BodyLine != 6 {
		t.Fatalf("BodyLine = %d, want 6", n.BodyLine)
	}
	opts := Options{MaxTokens: 100, MinTokens: 1}
	got := Split(n, opts)
	checkInvariants(t, raw, n, opts, got)
	want := []struct {
		start, end int
		text       string
	}{
		{7, 8, "# Intro\nfirst paragraph"},
		{10, 12, "## Part\nsecond paragraph\nwith two lines"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d chunks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		c := got[i]
		if c.LineStart != w.start || c.LineEnd != w.end || c.Text(n) != w.text {
			t.Errorf("chunk %d = lines %d-%d %q, want lines %d-%d %q", i, c.LineStart, c.LineEnd, c.Text(n), w.start, w.end, w.text)
		}
	}
}

// TestFences checks that a fenced code block is one unit: never cut at its
// blank lines, and the fence state agrees with vault's heading detection.
func TestFences(t *testing.T) {
	code := func(open, close string) string {
		return open + "\nline one\n\nline two\n\n\nline three\n" + close
	}
	tests := []struct {
		name  string
		text  string
		fence [2]int // file lines of the code block, which must be one chunk (if any)
		want  []span
	}{
		{"backticks", "para " + words(9) + "\n\n" + code("```go", "```") + "\n\n# After\nx\n", [2]int{3, 10},
			[]span{{[2]int{1, 1}, nil, 10}, {[2]int{3, 10}, nil, 8}, {[2]int{12, 13}, []string{"After"}, 3}}},
		{"tildes", "para " + words(9) + "\n\n" + code("~~~", "~~~") + "\n\n# After\nx\n", [2]int{3, 10},
			[]span{{[2]int{1, 1}, nil, 10}, {[2]int{3, 10}, nil, 8}, {[2]int{12, 13}, []string{"After"}, 3}}},
		{"four backticks around three", "para " + words(9) + "\n\n````md\n```go\nx\n\ny\n```\n\n# not a heading\n````\n\n# After\nx\n", [2]int{3, 11},
			[]span{{[2]int{1, 1}, nil, 10}, {[2]int{3, 11}, nil, 10}, {[2]int{13, 14}, []string{"After"}, 3}}},
		{"tildes around backticks", "para " + words(9) + "\n\n~~~\n```\n~~~\n\n# After\nx\n\n# Other\ny\n", [2]int{3, 5},
			[]span{{[2]int{1, 1}, nil, 10}, {[2]int{3, 5}, nil, 3}, {[2]int{7, 8}, []string{"After"}, 3}, {[2]int{10, 11}, []string{"Other"}, 3}}},
		{"indented backticks are not a fence", "para " + words(9) + "\n\n    ```\n\n# After\nx\n\n# Other\ny\n", [2]int{},
			[]span{{[2]int{1, 3}, nil, 11}, {[2]int{5, 6}, []string{"After"}, 3}, {[2]int{8, 9}, []string{"Other"}, 3}}},
		{"inline triple backticks are not a fence", "para " + words(9) + "\n\n```x``` inline\n\n# After\nx\n\n# Other\ny\n", [2]int{},
			[]span{{[2]int{1, 3}, nil, 12}, {[2]int{5, 6}, []string{"After"}, 3}, {[2]int{8, 9}, []string{"Other"}, 3}}},
		{"unclosed fence runs to the end", "para " + words(9) + "\n\n```\na\n\n# no heading\n\nb\n", [2]int{3, 8},
			[]span{{[2]int{1, 1}, nil, 10}, {[2]int{3, 8}, nil, 6}}},
	}
	opts := Options{MaxTokens: 12, MinTokens: 1}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := parse(t, tt.text)
			got := Split(n, opts)
			checkInvariants(t, tt.text, n, opts, got)
			found := tt.fence == [2]int{}
			for _, c := range got {
				if c.LineStart == tt.fence[0] && c.LineEnd == tt.fence[1] {
					found = true
				}
			}
			if !found {
				t.Errorf("no chunk is exactly the code block, lines %d-%d", tt.fence[0], tt.fence[1])
			}
			if g := spans(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("Split:\n got %+v\nwant %+v", g, tt.want)
				for _, c := range got {
					t.Logf("  %d: %q", c.Index, c.Text(n))
				}
			}
		})
	}
}

func TestOversizeFenceSplitsAtLines(t *testing.T) {
	raw := "```\n" + strings.Repeat(words(4)+"\n\n", 6) + "```\n"
	n := parse(t, raw)
	opts := Options{MaxTokens: 10}
	got := Split(n, opts)
	checkInvariants(t, raw, n, opts, got)
	if len(got) < 2 {
		t.Errorf("oversize code block gave %d chunk(s), want it cut at lines", len(got))
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \t\n", 0},
		{"hello", 1},
		{"hello world", 2},
		{"  Hello,   world!  ", 2},
		{"a\tb\nc", 3},
		{"well-known", 1},
		{"- [ ] task", 4},
		{"**bold** `code`", 2},
		{"non\u00a0breaking\u2003space", 3},
		{"日本語", 3},
		{"日本語 text", 4},
		{"hello日本", 3},
		{"日本hello", 3},
		{"東京タワーの説明", 8},
		{"한국어 검색", 5},
		{"ｶﾀｶﾅ", 4},
		{"中文，标点。", 6}, // punctuation counts as a word
		{"Café naïve हिंदी", 3},
		{"\xff\xfe", 1},
		{"a\vb\fc\rd", 4},
		{"a\u0085b", 2},
		{"a\x00b", 1},
		{"x\xffy z", 2},
	}
	for _, tt := range tests {
		if got := Tokens(tt.text); got != tt.want {
			t.Errorf("Tokens(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct{ in, want Options }{
		{Options{}, Options{MaxTokens: 320, MinTokens: 80}},
		{Options{MaxTokens: 40}, Options{MaxTokens: 40, MinTokens: 10}},
		{Options{MaxTokens: 40, MinTokens: 5}, Options{MaxTokens: 40, MinTokens: 5}},
		{Options{MaxTokens: -1, MinTokens: -1}, Options{MaxTokens: 320, MinTokens: 80}},
	}
	for _, tt := range tests {
		if got := tt.in.withDefaults(); got != tt.want {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	// The default budget is applied by Split.
	n := parse(t, strings.Repeat(words(100)+"\n\n", 7))
	got := Split(n, Options{})
	if len(got) != 3 || got[0].Tokens != 300 || got[2].Tokens != 100 {
		t.Errorf("Split with default options = %+v, want 300+300+100 tokens", spans(got))
	}
}

// genNote builds a random but deterministic note: frontmatter, headings of
// several levels, paragraphs of varied length, lists, CJK text, fenced
// code with blank lines, and stray blank/whitespace lines.
func genNote(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteString("---\ntitle: generated\ntags: [a, b]\n---\n")
	}
	for range 5 + rng.IntN(25) {
		switch rng.IntN(9) {
		case 0, 1:
			fmt.Fprintf(&b, "%s Heading %d\n", strings.Repeat("#", 1+rng.IntN(4)), rng.IntN(100))
		case 2:
			for range 1 + rng.IntN(6) {
				fmt.Fprintf(&b, "- item %s\n", words(1+rng.IntN(8)))
			}
		case 3:
			fence := []string{"```", "~~~", "````"}[rng.IntN(3)]
			b.WriteString(fence + "go\n")
			for range 1 + rng.IntN(10) {
				if rng.IntN(3) == 0 {
					b.WriteString("\n")
				} else {
					fmt.Fprintf(&b, "\tcode(%s)\n", words(1+rng.IntN(5)))
				}
			}
			b.WriteString(fence + "\n")
		case 4:
			b.WriteString(strings.Repeat("東京タワーの説明文。", 1+rng.IntN(8)) + "\n")
		case 5:
			b.WriteString("  \n")
		default:
			for range 1 + rng.IntN(5) {
				b.WriteString(words(1+rng.IntN(30)) + "\n")
			}
		}
		if rng.IntN(3) > 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestSplitProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	optsList := []Options{{}, {MaxTokens: 20}, {MaxTokens: 50, MinTokens: 1}, {MaxTokens: 8, MinTokens: 8}}
	for i := range 40 {
		raw := genNote(rng)
		n := parse(t, raw)
		for _, opts := range optsList {
			t.Run(fmt.Sprintf("note%d/max%d-min%d", i, opts.MaxTokens, opts.MinTokens), func(t *testing.T) {
				chunks := Split(n, opts)
				checkInvariants(t, raw, n, opts, chunks)
				// Split is deterministic.
				if again := Split(n, opts); !reflect.DeepEqual(again, chunks) {
					t.Error("second Split differs")
				}
				if t.Failed() {
					t.Logf("note:\n%s", raw)
				}
			})
		}
	}
}
