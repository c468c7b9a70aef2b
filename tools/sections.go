package tools

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// SectionInfo is one heading of a note map with the size of its section
// (the heading through the line before the next heading of the same or a
// higher level, trailing blank lines excluded).
type SectionInfo struct {
	Level   int    `json:"level"`
	Text    string `json:"text"`
	Path    string `json:"path" jsonschema:"The heading under its parent headings, joined with /; what section accepts."`
	Line    int    `json:"line" jsonschema:"File line of the heading (1-based)."`
	LineEnd int    `json:"line_end" jsonschema:"Last file line of the section."`
	Lines   int    `json:"lines" jsonschema:"Lines in the section, heading included."`
	Bytes   int    `json:"bytes" jsonschema:"Bytes of the section text (LF line endings)."`
}

// noteSection is a heading's section inside a note body.
type noteSection struct {
	SectionInfo
	text string
}

// noteSections splits a note into the sections of its headings, nested
// sections included in their parents.
func noteSections(n *vault.Note) []noteSection {
	lines := strings.Split(n.Body, "\n")
	last := n.BodyLine + len(lines) - 1
	out := make([]noteSection, 0, len(n.Headings))
	var stack []vault.Heading
	for i, h := range n.Headings {
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		end := last
		for _, next := range n.Headings[i+1:] {
			if next.Level <= h.Level {
				end = next.Line - 1
				break
			}
		}
		from, to := clampLines(h.Line-n.BodyLine, end-n.BodyLine, len(lines))
		for to > from && strings.TrimSpace(lines[to]) == "" {
			to--
		}
		text := strings.Join(lines[from:to+1], "\n")
		out = append(out, noteSection{text: text, SectionInfo: SectionInfo{
			Level: h.Level, Text: h.Text, Path: headingPath(stack), Line: h.Line,
			LineEnd: to + n.BodyLine, Lines: to - from + 1, Bytes: len(text),
		}})
	}
	return out
}

// clampLines keeps a body line range inside [0, n).
func clampLines(from, to, n int) (int, int) {
	from = min(max(from, 0), n-1)
	to = min(max(to, from), n-1)
	return from, to
}

func headingPath(stack []vault.Heading) string {
	parts := make([]string, len(stack))
	for i, h := range stack {
		parts[i] = h.Text
	}
	return strings.Join(parts, "/")
}

// findSection picks the section a user named: a heading's text, or its
// path ("Heading/Sub", any trailing part of the full path), compared
// case-insensitively; the first in document order wins.
func findSection(n *vault.Note, secs []noteSection, query string) (noteSection, error) {
	q := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(query), "#")))
	q = strings.Trim(q, "/")
	if q == "" {
		return noteSection{}, fmt.Errorf("section is empty; %s", headingList(n.Path, secs))
	}
	for _, s := range secs {
		if strings.ToLower(s.Text) == q {
			return s, nil
		}
	}
	for _, s := range secs {
		p := strings.ToLower(s.Path)
		if p == q || strings.HasSuffix(p, "/"+q) {
			return s, nil
		}
	}
	return noteSection{}, fmt.Errorf("section %s not found; %s", quote(query), headingList(n.Path, secs))
}

// headingList names a note's headings for an error message.
func headingList(path string, secs []noteSection) string {
	if len(secs) == 0 {
		return path + " has no headings"
	}
	const most = 50
	names := make([]string, 0, min(len(secs), most))
	for _, s := range secs[:min(len(secs), most)] {
		names = append(names, fmt.Sprintf("%q", s.Path))
	}
	more := ""
	if len(secs) > most {
		more = fmt.Sprintf(" (and %d more)", len(secs)-most)
	}
	return "the headings of " + path + " are: " + strings.Join(names, ", ") + more
}

// inLines reports whether a file line lies in [from, to].
func inLines(line, from, to int) bool { return line >= from && line <= to }
