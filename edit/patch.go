package edit

import (
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Patch operations: where content goes relative to a heading's section
// or a block.
const (
	// InsertBefore puts content at the start of a heading's section
	// (right under the heading line) or before a block.
	InsertBefore = "insert_before"
	// InsertAfter puts content after the last non-blank line of a
	// heading's section (subsections included) or after a block.
	InsertAfter = "insert_after"
	// ReplaceContent replaces a section's content (the heading line stays)
	// or a block's text (its ^id stays).
	ReplaceContent = "replace"
)

// PatchHeading changes the section of the heading at headingPath: "## A >
// ### B" or "A > B" (each step a heading's text, case-insensitive, its
// #s optional and then checked; each step under the one before it). A
// path that matches no heading or more than one is an error naming what
// the note has.
func PatchHeading(src []byte, headingPath, op, content string) ([]byte, error) {
	note, _ := vault.Parse("note.md", src)
	i, err := findHeadingPath(note.Headings, headingPath)
	if err != nil {
		return nil, err
	}
	h := note.Headings[i]
	lines := splitLines(string(src))
	end := len(lines) // exclusive, 0-based: the next heading of the same or a higher level
	for _, next := range note.Headings[i+1:] {
		if next.Level <= h.Level {
			end = next.Line - 1
			break
		}
	}
	last := h.Line - 1 // the last non-blank line of the section (0-based)
	for j := end - 1; j >= h.Line; j-- {
		if strings.TrimSpace(lines[j]) != "" {
			last = j
			break
		}
	}
	switch op {
	case InsertBefore:
		return spliceLines(lines, h.Line, h.Line, content), nil
	case InsertAfter:
		return spliceLines(lines, last+1, last+1, content), nil
	case ReplaceContent:
		if last < h.Line { // an empty section: content goes under the heading
			return spliceLines(lines, h.Line, h.Line, content), nil
		}
		return spliceLines(lines, h.Line, last+1, content), nil
	}
	return nil, badOp(op)
}

// PatchBlock changes the block with the id ("^id" or "id") at the end of
// one of its lines: a list item is its own line, a paragraph runs up from
// the id's line to the blank line or heading above it.
func PatchBlock(src []byte, id, op, content string) ([]byte, error) {
	want := strings.TrimPrefix(strings.TrimSpace(id), "^")
	if want == "" {
		return nil, fmt.Errorf("block id is empty")
	}
	note, _ := vault.Parse("note.md", src)
	line := 0
	for _, b := range note.Blocks {
		if strings.EqualFold(b.ID, want) {
			if line != 0 {
				return nil, fmt.Errorf("block ^%s appears more than once (lines %d and %d); give a unique id", want, line, b.Line)
			}
			line = b.Line
		}
	}
	if line == 0 {
		return nil, fmt.Errorf("no block ^%s in the note", want)
	}
	lines := splitLines(string(src))
	last := line - 1
	first := last
	if !isListItem(lines[last]) {
		for first > 0 {
			prev := strings.TrimSpace(stripEOL(lines[first-1]))
			if prev == "" || strings.HasPrefix(prev, "#") || isListItem(prev) || prev == "---" {
				break
			}
			first--
		}
	}
	switch op {
	case InsertBefore:
		return spliceLines(lines, first, first, content), nil
	case InsertAfter:
		return spliceLines(lines, last+1, last+1, content), nil
	case ReplaceContent:
		suffix := " ^" + want
		text := strings.TrimRight(content, "\r\n")
		if !strings.HasSuffix(strings.ToLower(text), strings.ToLower(suffix)) {
			text += suffix // the id stays, so links to the block keep working
		}
		prefix := ""
		if isListItem(lines[last]) && !isListItem(text) {
			l := stripEOL(lines[last])
			prefix = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + listMarker(strings.TrimLeft(l, " \t"))
		}
		return spliceLines(lines, first, last+1, prefix+text), nil
	}
	return nil, badOp(op)
}

func badOp(op string) error {
	return fmt.Errorf("operation must be %s, %s or %s, got %q", InsertBefore, InsertAfter, ReplaceContent, op)
}

// isListItem reports a Markdown list item line ("- x", "* x", "+ x",
// "1. x", "1) x", tasks included).
func isListItem(l string) bool {
	return listMarker(strings.TrimLeft(stripEOL(l), " \t")) != ""
}

// listMarker is the marker and space a list item line starts with.
func listMarker(l string) string {
	if len(l) >= 2 && strings.ContainsRune("-*+", rune(l[0])) && l[1] == ' ' {
		return l[:2]
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' {
		return l[:i+2]
	}
	return ""
}

// spliceLines replaces lines[from:to] with content as whole lines (a
// final newline added, in the note's line ending).
func spliceLines(lines []string, from, to int, content string) []byte {
	eol := lineEnding(strings.Join(lines, ""))
	var b strings.Builder
	for _, l := range lines[:from] {
		b.WriteString(l)
	}
	if from > 0 && !strings.HasSuffix(lines[from-1], "\n") {
		b.WriteString(eol) // the last line had no newline
	}
	if content != "" {
		c := withEOL(content, eol)
		b.WriteString(c)
		if !strings.HasSuffix(c, "\n") {
			b.WriteString(eol)
		}
	}
	for _, l := range lines[to:] {
		b.WriteString(l)
	}
	return []byte(b.String())
}

// headingStep is one step of a heading path.
type headingStep struct {
	level int // 0: any
	text  string
}

// findHeadingPath returns the index of the one heading a path names.
func findHeadingPath(hs []vault.Heading, path string) (int, error) {
	var steps []headingStep
	for _, part := range strings.Split(path, ">") {
		t := strings.TrimSpace(part)
		level := len(t) - len(strings.TrimLeft(t, "#"))
		t = norm.NFC.String(strings.TrimSpace(t[level:]))
		if t == "" {
			return 0, fmt.Errorf("heading path %q has an empty step", path)
		}
		steps = append(steps, headingStep{level, t})
	}
	var found []int
	for i := range hs {
		if matchesPath(hs, i, steps) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no heading %q in the note; headings: %s", path, headingList(hs))
	case 1:
		return found[0], nil
	}
	lines := make([]string, len(found))
	for k, i := range found {
		lines[k] = fmt.Sprint(hs[i].Line)
	}
	return 0, fmt.Errorf("heading %q matches %d headings (lines %s); give its parents too, e.g. \"## Parent > ### %s\"", path, len(found), strings.Join(lines, ", "), steps[len(steps)-1].text)
}

// matchesPath reports whether heading i is the last step and its
// ancestors, nearest first, hold the steps before it in order.
func matchesPath(hs []vault.Heading, i int, steps []headingStep) bool {
	if !stepMatches(hs[i], steps[len(steps)-1]) {
		return false
	}
	k := len(steps) - 2
	level := hs[i].Level
	for j := i - 1; j >= 0 && k >= 0; j-- {
		if hs[j].Level >= level {
			continue // a sibling or a deeper heading, not an ancestor
		}
		level = hs[j].Level
		if stepMatches(hs[j], steps[k]) {
			k--
		}
	}
	return k < 0
}

func stepMatches(h vault.Heading, s headingStep) bool {
	return (s.level == 0 || s.level == h.Level) && strings.EqualFold(h.Text, s.text)
}
