package search

import "strings"

// construct is one piece of inline Markdown in a snippet line that a mark
// must never split: a link target, a code span, a URL. Marking inside one
// would break what a reader or an assistant copies from the snippet.
type construct struct {
	start, end int // the whole construct, byte offsets
	// prose is the part shown as text and marked inside: the display text
	// of an aliased wikilink or of a Markdown link. Empty (0, 0) when the
	// construct is atomic and is marked, if at all, as a whole.
	proseStart, proseEnd int
	kind                 constructKind
}

type constructKind int

const (
	atomic   constructKind = iota // [[note]], ![[embed]], `code`, ![img](src), a bare URL
	aliased                       // [[note|display]]: shown by its display text
	markdown                      // [text](url): text marked, url untouched
)

// constructs lists the inline constructs of s in order; offsets are
// relative to s. Unterminated syntax is plain text, as Obsidian shows it.
func constructs(s string) []construct {
	var out []construct
	for i := 0; i < len(s); {
		c, ok := constructAt(s, i)
		if !ok {
			i++
			continue
		}
		out = append(out, c)
		i = c.end
	}
	return out
}

func constructAt(s string, i int) (construct, bool) {
	switch {
	case s[i] == '`':
		n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
		fence := s[i : i+n]
		if j := strings.Index(s[i+n:], fence); j >= 0 {
			return construct{start: i, end: i + n + j + n, kind: atomic}, true
		}
	case strings.HasPrefix(s[i:], "![["), strings.HasPrefix(s[i:], "[["):
		open := 2
		if s[i] == '!' {
			open = 3
		}
		j := strings.Index(s[i+open:], "]]")
		if j < 0 {
			break
		}
		inner := s[i+open : i+open+j]
		c := construct{start: i, end: i + open + j + 2, kind: atomic}
		if p := strings.IndexByte(inner, '|'); p >= 0 && open == 2 && strings.TrimSpace(inner[p+1:]) != "" {
			c.kind, c.proseStart, c.proseEnd = aliased, i+open+p+1, i+open+j
		}
		return c, true
	case s[i] == '[', s[i] == '!' && strings.HasPrefix(s[i:], "!["):
		from := i + 1
		if s[i] == '!' {
			from = i + 2
		}
		k := strings.IndexByte(s[from:], ']')
		if k < 0 || from+k+1 >= len(s) || s[from+k+1] != '(' {
			break
		}
		m := strings.IndexByte(s[from+k+2:], ')')
		if m < 0 {
			break
		}
		c := construct{start: i, end: from + k + 2 + m + 1, kind: atomic}
		if s[i] == '[' {
			c.kind, c.proseStart, c.proseEnd = markdown, from, from+k
		}
		return c, true
	case strings.HasPrefix(s[i:], "http://"), strings.HasPrefix(s[i:], "https://"):
		if i > 0 && !strings.ContainsRune(" \t(<", rune(s[i-1])) {
			break
		}
		end := i + strings.IndexAny(s[i:]+" ", " \t<>")
		return construct{start: i, end: end, kind: atomic}, true
	}
	return construct{}, false
}

// writeMarked writes body[from:to], wrapping the parts of spans inside it
// in marks.
func writeMarked(b *strings.Builder, body string, from, to int, spans []span) {
	pos := from
	for _, sp := range spans {
		s, e := max(sp.start, from), min(sp.end, to)
		if s >= e {
			continue
		}
		b.WriteString(plain(body[pos:s]))
		b.WriteString(HighlightOpen + plain(body[s:e]) + HighlightClose)
		pos = e
	}
	b.WriteString(plain(body[pos:to]))
}

// writeLine renders one line of the snippet window: prose is marked where
// query terms are, constructs are kept whole.
func writeLine(b *strings.Builder, body string, l line) {
	spans := mergeSpans(l.spans)
	pos := l.start
	for _, c := range constructs(body[l.start:l.end]) {
		start, end := l.start+c.start, l.start+c.end
		writeMarked(b, body, pos, start, spans)
		switch c.kind {
		case aliased:
			writeMarked(b, body, l.start+c.proseStart, l.start+c.proseEnd, spans)
		case markdown:
			b.WriteByte('[')
			writeMarked(b, body, l.start+c.proseStart, l.start+c.proseEnd, spans)
			b.WriteString(plain(body[l.start+c.proseEnd : end]))
		default:
			if overlaps(spans, start, end) {
				b.WriteString(HighlightOpen + plain(body[start:end]) + HighlightClose)
			} else {
				b.WriteString(plain(body[start:end]))
			}
		}
		pos = end
	}
	writeMarked(b, body, pos, l.end, spans)
}

func overlaps(spans []span, start, end int) bool {
	for _, sp := range spans {
		if sp.start < end && sp.end > start {
			return true
		}
	}
	return false
}

// protected lists the byte ranges of s that a cut must not fall inside:
// its constructs, with marks that wrap one counted as part of it.
func protected(s string) []span {
	cs := constructs(s)
	out := make([]span, 0, len(cs))
	for _, c := range cs {
		r := span{c.start, c.end}
		if strings.HasSuffix(s[:r.start], HighlightOpen) && strings.HasPrefix(s[r.end:], HighlightClose) {
			r.start -= len(HighlightOpen)
			r.end += len(HighlightClose)
		}
		out = append(out, r)
	}
	return out
}
