package edit

import (
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// DefaultSeparator goes between a note's text and appended content.
const DefaultSeparator = "\n\n"

// Append adds content at the end of src. The separator goes between the
// existing text and the content, minus whatever part of it the text
// already ends with (with the default "\n\n", a note ending in one newline
// gets one more, a note ending in a blank line gets none); an empty note
// gets no separator. The content is terminated with a newline if it lacks
// one, and in a CRLF note every newline added is CRLF. It returns the new
// text and the number of bytes added.
func Append(src []byte, content, sep string) ([]byte, int) {
	return insert(src, len(src), content, sep)
}

// AppendToSection adds content at the end of the section under heading
// (the text of an ATX heading outside code, matched case-insensitively,
// leading '#'s optional): after the section's last non-blank line, before
// the blank lines that precede the next heading of the same or a higher
// level. Separator and newlines are handled as in Append. A heading that
// is missing or appears more than once is an error.
func AppendToSection(src []byte, heading, content, sep string) ([]byte, int, error) {
	note, _ := vault.Parse("note.md", src)
	want := norm.NFC.String(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(heading), "#")))
	var matches []vault.Heading
	idx := -1
	for i, h := range note.Headings {
		if strings.EqualFold(h.Text, want) {
			matches = append(matches, h)
			idx = i
		}
	}
	switch {
	case want == "":
		return nil, 0, fmt.Errorf("heading is empty")
	case len(matches) == 0:
		return nil, 0, fmt.Errorf("no heading %q in the note; headings: %s", want, headingList(note.Headings))
	case len(matches) > 1:
		lines := make([]string, len(matches))
		for i, h := range matches {
			lines[i] = fmt.Sprint(h.Line)
		}
		return nil, 0, fmt.Errorf("heading %q appears %d times (lines %s); give a unique heading", want, len(matches), strings.Join(lines, ", "))
	}
	h := note.Headings[idx]
	text := string(src)
	lines := splitLines(text)
	end := len(lines) // exclusive, 0-based
	for _, next := range note.Headings[idx+1:] {
		if next.Level <= h.Level {
			end = next.Line - 1
			break
		}
	}
	last := h.Line - 1
	for i := end - 1; i >= h.Line; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			last = i
			break
		}
	}
	pos := 0
	for _, l := range lines[:last+1] {
		pos += len(l)
	}
	out, n := insert(src, pos, content, sep)
	return out, n, nil
}

func headingList(hs []vault.Heading) string {
	if len(hs) == 0 {
		return "(none)"
	}
	var names []string
	for i, h := range hs {
		if i == 20 {
			names = append(names, "…")
			break
		}
		names = append(names, fmt.Sprintf("%q", h.Text))
	}
	return strings.Join(names, ", ")
}

// insert puts separator (minus the overlap with what precedes pos) and
// content at byte offset pos.
func insert(src []byte, pos int, content, sep string) ([]byte, int) {
	text := string(src)
	eol := lineEnding(text)
	content, sep = withEOL(content, eol), withEOL(sep, eol)
	prefix := text[:pos]
	var piece string
	if strings.TrimPrefix(prefix, bom) != "" {
		piece = sep[overlap(prefix, sep):]
	}
	piece += content
	if !strings.HasSuffix(piece, "\n") {
		piece += eol
	}
	return []byte(prefix + piece + text[pos:]), len(piece)
}

// overlap is the length of the longest prefix of sep that text ends with.
func overlap(text, sep string) int {
	for k := len(sep); k > 0; k-- {
		if strings.HasSuffix(text, sep[:k]) {
			return k
		}
	}
	return 0
}
