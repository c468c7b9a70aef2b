package vault

import "strings"

// TagSpan is where an inline tag is written: its file line (1-based) and
// the byte offsets in that line of "#tag" ('#' included, a trailing '/'
// not).
type TagSpan struct {
	Line, Start, End int
	Tag              string
}

// InlineTagSpans lists the inline tags of a note file as Parse reads
// them (never in code, links, URLs or the frontmatter), with offsets into
// the file's own lines: CRLF endings and text in NFD are not normalised
// first, so a span can be edited in place.
func InlineTagSpans(raw []byte) []TagSpan {
	n, _ := Parse("note.md", raw)
	text := string(raw)
	bomLen := 0
	if strings.HasPrefix(text, "\uFEFF") {
		bomLen = len("\uFEFF")
	}
	lines := strings.SplitAfter(text, "\n")
	if n.BodyLine < 1 || n.BodyLine > len(lines) {
		return nil
	}
	body := strings.Join(lines[n.BodyLine-1:], "")
	if n.BodyLine == 1 {
		body = body[bomLen:]
	}
	var out []TagSpan
	s := bodyScanner{note: &Note{}, onTag: func(t TagSpan) {
		if t.Line == 1 {
			t.Start, t.End = t.Start+bomLen, t.End+bomLen
		}
		out = append(out, t)
	}}
	s.scan(body, n.BodyLine)
	return out
}
