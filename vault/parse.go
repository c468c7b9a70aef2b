package vault

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Parse parses one note from its raw bytes. path is vault-relative. Parse
// never fails: problems (malformed YAML) come back as warnings and the note
// keeps what could be read.
func Parse(path string, raw []byte) (*Note, []Warning) {
	text := normalizeText(raw)
	fm, body, bodyLine, warn := splitFrontmatter(text)
	n := &Note{
		Path:        nfc(path),
		Kind:        KindMarkdown,
		Frontmatter: fm,
		Body:        body,
		BodyLine:    bodyLine,
		Size:        int64(len(raw)),
	}
	var warnings []Warning
	if warn != "" {
		warnings = append(warnings, Warning{Path: n.Path, Message: warn})
	}
	n.Title = baseName(n.Path)
	if v, ok := fmValue(fm, "title"); ok {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			n.Title = strings.TrimSpace(s)
		}
	}
	if v, ok := fmValue(fm, "aliases", "alias"); ok {
		n.Aliases = uniqueFold(stringList(v, ","))
	}
	if v, ok := fmValue(fm, "tags", "tag"); ok {
		for _, t := range stringList(v, ", \t") {
			if t = strings.TrimLeft(t, "#"); t != "" {
				n.FrontmatterTags = append(n.FrontmatterTags, t)
			}
		}
		n.FrontmatterTags = uniqueFold(n.FrontmatterTags)
	}
	if n.IsDrawing() {
		body = drawingText(body)
		n.Body = body
	}
	n.Links = propertyLinks(text, fm)
	s := bodyScanner{note: n}
	s.scan(body, bodyLine)
	n.InlineTags = uniqueFold(n.InlineTags)
	n.Tags = uniqueFold(append(append([]string(nil), n.FrontmatterTags...), n.InlineTags...))
	return n, warnings
}

// normalizeText makes raw bytes valid UTF-8, drops a BOM, turns CRLF into
// LF (line numbers are unchanged) and applies Unicode NFC.
func normalizeText(raw []byte) string {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return nfc(s)
}

func nfc(s string) string {
	if norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// uniqueFold keeps the first spelling of every case-insensitively equal
// string.
func uniqueFold(in []string) []string {
	if len(in) < 2 {
		return in
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		k := strings.ToLower(s)
		if !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

// bodyScanner walks the body line by line, tracking fenced and indented
// code.
type bodyScanner struct {
	note      *Note
	fenceChar byte
	fenceLen  int
	// canIndent: an indented code block may start here (it cannot
	// interrupt a paragraph). inList: indented lines continue a list item.
	canIndent, inList, prevBlank bool
	// onTag, when set, receives every inline tag with its place.
	onTag func(TagSpan)
}

func (s *bodyScanner) scan(body string, firstLine int) {
	s.canIndent = true
	lineNo := firstLine
	for len(body) > 0 {
		line, rest, _ := strings.Cut(body, "\n")
		s.line(line, lineNo)
		body = rest
		lineNo++
	}
}

func (s *bodyScanner) line(line string, lineNo int) {
	blank := strings.TrimSpace(line) == ""
	prevBlank := s.prevBlank
	s.prevBlank = blank
	if s.fenceLen == 0 && !blank && s.canIndent && !s.inList && indentWidth(line) >= 4 {
		return // indented code block
	}
	if s.fence(line) || blank {
		s.canIndent = true
		return
	}
	masked := maskCode(line)
	text := masked
	level, htext, isHeading := parseHeading(masked)
	trimmed := strings.TrimLeft(line, " \t")
	if isListItem(trimmed) {
		s.inList = true
	} else if len(trimmed) == len(line) && (prevBlank || isHeading) {
		s.inList = false // a paragraph or heading at column 0 ends the list
	}
	s.canIndent = isHeading // a heading is one line: code may follow it
	base := 0               // where text starts in line
	if isHeading {
		base = len(masked) - len(htext)
		// Offsets are equal in line and masked; the text keeps its code spans.
		orig := line[len(line)-len(htext):]
		s.note.Headings = append(s.note.Headings, Heading{Level: level, Text: cleanHeading(orig), Line: lineNo})
		text = htext // a tag in a heading's text is still a tag
	}
	if id := blockID(masked); id != "" {
		s.note.Blocks = append(s.note.Blocks, Block{ID: id, Line: lineNo})
	}
	links, masked2 := parseLinks(text, lineNo)
	s.note.Links = append(s.note.Links, links...)
	for _, t := range tagSpans(maskURLs(masked2)) {
		s.note.InlineTags = append(s.note.InlineTags, t.Tag)
		if s.onTag != nil {
			s.onTag(TagSpan{Line: lineNo, Start: base + t.Start, End: base + t.End, Tag: t.Tag})
		}
	}
}

// fence updates the code-fence state and reports whether line is code
// (including the fence lines themselves).
func (s *bodyScanner) fence(line string) bool {
	trimmed := strings.TrimLeft(line, " ")
	indent := len(line) - len(trimmed)
	if s.fenceLen > 0 {
		if indent <= 3 {
			n := runOf(trimmed, s.fenceChar)
			if n >= s.fenceLen && strings.TrimSpace(trimmed[n:]) == "" {
				s.fenceLen = 0
			}
		}
		return true
	}
	if indent > 3 || len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return false
	}
	n := runOf(trimmed, trimmed[0])
	if n < 3 || (trimmed[0] == '`' && strings.IndexByte(trimmed[n:], '`') >= 0) {
		return false
	}
	s.fenceChar, s.fenceLen = trimmed[0], n
	return true
}

// indentWidth is the indentation of line in columns (tab stops of 4).
func indentWidth(line string) int {
	w := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// isListItem reports whether a left-trimmed line starts a list item
// ("- ", "* ", "+ ", "1. ", "1) ").
func isListItem(s string) bool {
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	switch {
	case n == 0 && s != "" && (s[0] == '-' || s[0] == '*' || s[0] == '+'):
		n = 1
	case n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')'):
		n++
	default:
		return false
	}
	return n == len(s) || s[n] == ' ' || s[n] == '\t'
}

func runOf(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// maskCode replaces inline code spans (including their backticks) with
// spaces, keeping byte offsets.
func maskCode(line string) string {
	if strings.IndexByte(line, '`') < 0 {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := runOf(line[i:], '`')
		closeAt := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := runOf(line[j:], '`')
			if m == n {
				closeAt = j + m
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		for k := i; k < closeAt; k++ {
			b[k] = ' '
		}
		i = closeAt
	}
	return string(b)
}

// parseHeading recognises an ATX heading ("## text"); htext is the slice of
// line after the opening hashes.
func parseHeading(line string) (level int, htext string, ok bool) {
	trimmed := strings.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 {
		return 0, "", false
	}
	level = runOf(trimmed, '#')
	if level < 1 || level > 6 {
		return 0, "", false
	}
	rest := trimmed[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	return level, rest, true
}

// cleanHeading drops the optional closing hashes of "## Title ##".
func cleanHeading(h string) string {
	h = strings.TrimSpace(h)
	t := strings.TrimRight(h, "#")
	if t == "" {
		return ""
	}
	if len(t) < len(h) && (strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		return strings.TrimSpace(t)
	}
	return h
}

// blockID returns the "^id" that ends a line, if any.
func blockID(line string) string {
	line = strings.TrimRight(line, " \t")
	i := strings.LastIndexByte(line, '^')
	if i < 0 || i == len(line)-1 || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
		return ""
	}
	id := line[i+1:]
	for _, r := range id {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return ""
		}
	}
	return id
}
