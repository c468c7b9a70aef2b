// Package chunk splits a note's body into heading-aware passages. Every
// signal (TF-IDF blocks, BM25, embeddings) uses these chunks, so a chunk id —
// the note path plus the chunk's index — means the same passage everywhere.
package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Options set the token budget of a chunk. Tokens are estimated as words
// plus CJK characters.
type Options struct {
	// MaxTokens is the budget a chunk grows to (default 320).
	MaxTokens int
	// MinTokens: a chunk smaller than this absorbs the next section even
	// across a heading, so short sections do not become tiny chunks
	// (default MaxTokens/4).
	MinTokens int
}

// DefaultOptions are used when Options are zero.
var DefaultOptions = Options{MaxTokens: 320, MinTokens: 80}

func (o Options) withDefaults() Options {
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultOptions.MaxTokens
	}
	if o.MinTokens <= 0 {
		o.MinTokens = o.MaxTokens / 4
	}
	return o
}

// Chunk is a passage of a note body.
type Chunk struct {
	// Index is the chunk's position in the note, from 0.
	Index int
	// Start and End are byte offsets into the note's Body.
	Start, End int
	// LineStart and LineEnd are 1-based file lines, inclusive.
	LineStart, LineEnd int
	// Headings is the heading path at the chunk's first line, outermost
	// first.
	Headings []string
	// Tokens is the estimated token count.
	Tokens int
	// Page is the PDF page the chunk is on (0 for markdown).
	Page int
}

// Text returns the chunk's text from its note.
func (c Chunk) Text(n *vault.Note) string { return n.Body[c.Start:c.End] }

// Split chunks a note. Every note gets at least one chunk (an empty body
// gives one empty chunk), so "best chunk of a note" is always defined.
func Split(n *vault.Note, opts Options) []Chunk {
	opts = opts.withDefaults()
	units := paragraphs(n)
	var out []Chunk
	var cur *Chunk
	flush := func() {
		if cur != nil {
			cur.Index = len(out)
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, u := range units {
		if u.Tokens > opts.MaxTokens {
			flush()
			for _, piece := range splitLines(n, u, opts.MaxTokens) {
				p := piece
				cur = &p
				flush()
			}
			continue
		}
		if cur != nil {
			fits := cur.Tokens+u.Tokens <= opts.MaxTokens
			if !fits || u.newPage || (u.heading && cur.Tokens >= opts.MinTokens) {
				flush()
			}
		}
		if cur == nil {
			c := u.Chunk
			cur = &c
			continue
		}
		cur.End, cur.LineEnd, cur.Tokens = u.End, u.LineEnd, cur.Tokens+u.Tokens
	}
	flush()
	if len(out) == 0 {
		out = append(out, Chunk{LineStart: n.BodyLine, LineEnd: n.BodyLine, Headings: nil})
	}
	return out
}

// unit is a paragraph (or fenced code block); heading marks one that
// starts with a heading line, newPage one that starts a PDF page (a chunk
// never spans two pages).
type unit struct {
	Chunk
	heading, newPage bool
}

// paragraphs cuts the body at blank lines and before headings, never
// inside a fenced code block.
func paragraphs(n *vault.Note) []unit {
	headingAt := make(map[int]int, len(n.Headings)) // file line → heading index
	for i, h := range n.Headings {
		headingAt[h.Line] = i
	}
	pageAt := make(map[int]int, len(n.Pages)) // body line → page number
	for _, p := range n.Pages {
		pageAt[p.Line] = p.Number
	}
	var units []unit
	var path []vault.Heading
	var cur *unit
	end := func() {
		if cur != nil {
			units = append(units, *cur)
			cur = nil
		}
	}
	var fence codeFence
	page, newPage := 0, false
	line := n.BodyLine
	for off := 0; off < len(n.Body); line++ {
		text, _, _ := strings.Cut(n.Body[off:], "\n")
		next := min(off+len(text)+1, len(n.Body))
		trimmed := strings.TrimSpace(text)
		inFence := fence.n > 0
		if p, ok := pageAt[line]; ok {
			end()
			page, newPage = p, true
		}
		if hi, ok := headingAt[line]; ok && !inFence {
			end()
			h := n.Headings[hi]
			for len(path) > 0 && path[len(path)-1].Level >= h.Level {
				path = path[:len(path)-1]
			}
			path = append(path, h)
			cur = &unit{Chunk: Chunk{Start: off, LineStart: line, Headings: headingTexts(path), Page: page}, heading: true}
		} else if trimmed == "" && !inFence {
			end()
			off = next
			continue
		}
		fence.line(text)
		if cur == nil {
			cur = &unit{Chunk: Chunk{Start: off, LineStart: line, Headings: headingTexts(path), Page: page}, newPage: newPage}
			newPage = false
		}
		cur.End, cur.LineEnd = off+len(text), line
		cur.Tokens += Tokens(text)
		off = next
	}
	end()
	return units
}

// codeFence tracks fenced code with the rules of vault's parser (an
// opening run of 3+ backticks or tildes indented at most 3 spaces, closed
// by a run of the same character at least as long), so chunking agrees with
// the headings vault found.
type codeFence struct {
	char byte
	n    int // length of the open fence's run; 0 outside code
}

func (f *codeFence) line(line string) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return
	}
	if f.n > 0 {
		if k := runOf(trimmed, f.char); k >= f.n && strings.TrimSpace(trimmed[k:]) == "" {
			f.n = 0
		}
		return
	}
	if trimmed == "" || trimmed[0] != '`' && trimmed[0] != '~' {
		return
	}
	k := runOf(trimmed, trimmed[0])
	if k >= 3 && (trimmed[0] == '~' || strings.IndexByte(trimmed[k:], '`') < 0) {
		f.char, f.n = trimmed[0], k
	}
}

func runOf(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func headingTexts(path []vault.Heading) []string {
	if len(path) == 0 {
		return nil
	}
	out := make([]string, len(path))
	for i, h := range path {
		out[i] = h.Text
	}
	return out
}

// splitLines cuts an oversize paragraph at line boundaries; a single line
// over the budget is cut between sentences (or words) by splitLine.
func splitLines(n *vault.Note, u unit, budget int) []Chunk {
	var out []Chunk
	cur := Chunk{Start: u.Start, LineStart: u.LineStart, Headings: u.Headings, Page: u.Page}
	line := u.LineStart
	for off := u.Start; off < u.End; line++ {
		text, _, _ := strings.Cut(n.Body[off:u.End], "\n")
		t := Tokens(text)
		if cur.Tokens > 0 && cur.Tokens+t > budget {
			out = append(out, cur)
			cur = Chunk{Start: off, LineStart: line, Headings: u.Headings, Page: u.Page}
		}
		if t > budget {
			pieces := splitLine(text, off, budget)
			for _, p := range pieces[:len(pieces)-1] {
				out = append(out, Chunk{Start: p[0], End: p[1], LineStart: line, LineEnd: line,
					Headings: u.Headings, Page: u.Page, Tokens: Tokens(n.Body[p[0]:p[1]])})
			}
			last := pieces[len(pieces)-1]
			cur = Chunk{Start: last[0], LineStart: line, Headings: u.Headings, Page: u.Page}
			t = Tokens(n.Body[last[0]:last[1]])
		}
		cur.End, cur.LineEnd = off+len(text), line
		cur.Tokens += t
		off += len(text) + 1
	}
	return append(out, cur)
}

// splitLine cuts one long line (starting at byte off of the body) into
// [start,end) pieces of at most about budget tokens, preferring to cut
// after a sentence end, else at a space. A piece never starts or ends
// with the space it was cut at.
func splitLine(text string, off, budget int) [][2]int {
	var pieces [][2]int
	start := 0
	for start < len(text) {
		end, tokens, lastSentence, lastSpace := start, 0, -1, -1
		inWord := false
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			space := unicode.IsSpace(r)
			if analysis.IsCJK(r) || (!space && !inWord) {
				tokens++
			}
			inWord = !space && !analysis.IsCJK(r)
			if tokens > budget {
				break
			}
			if space {
				lastSpace = end
				if end > start && strings.ContainsRune(".!?;", rune(text[end-1])) {
					lastSentence = end
				}
			} else if r == '。' || r == '！' || r == '？' {
				lastSentence = end + size
			}
			end += size
		}
		if end < len(text) {
			switch {
			case lastSentence > start:
				end = lastSentence
			case lastSpace > start:
				end = lastSpace
			}
		}
		pieces = append(pieces, [2]int{off + start, off + end})
		for start = end; start < len(text) && text[start] == ' '; start++ {
		}
	}
	return pieces
}

// Tokens estimates the token count of text: words plus CJK characters.
func Tokens(text string) int {
	n, inWord := 0, false
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf { // most text: no rune decoding, no table lookups
			i++
			if asciiSpace[c] {
				inWord = false
			} else {
				if !inWord {
					n++
				}
				inWord = true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case analysis.IsCJK(r):
			n++
			inWord = false
		case unicode.IsSpace(r):
			inWord = false
		default:
			if !inWord {
				n++
			}
			inWord = true
		}
	}
	return n
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
