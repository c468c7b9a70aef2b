// Package subpath finds the part of a note a link names after its target:
// a #heading (or a nested #A#B path), a #^block id, or a PDF's #page=N,
// and the text of that part.
package subpath

import (
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Heading matches a link's heading part against a note's headings:
// exactly (ignoring case), or after dropping the characters Obsidian
// drops from heading links. "A#B" is a nested heading path: B after A.
func Heading(hs []vault.Heading, sub string) (vault.Heading, bool) {
	var found vault.Heading
	next := 0
	for _, seg := range strings.Split(sub, "#") {
		if seg = strings.TrimSpace(seg); seg == "" {
			continue
		}
		i := -1
		for k := next; k < len(hs); k++ {
			if strings.EqualFold(hs[k].Text, seg) || headingKey(hs[k].Text) == headingKey(seg) {
				i = k
				break
			}
		}
		if i < 0 {
			return vault.Heading{}, false
		}
		found, next = hs[i], i+1
	}
	return found, found.Line > 0
}

// headingKey is a heading's text compared loosely: lower case, without
// link-breaking punctuation, single spaces.
func headingKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`#^[]|:\*%`, r) {
			return ' '
		}
		return r
	}, strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// Block finds a link's block id among a note's blocks, ignoring case.
func Block(bs []vault.Block, id string) (vault.Block, bool) {
	for _, b := range bs {
		if strings.EqualFold(b.ID, strings.TrimSpace(id)) {
			return b, true
		}
	}
	return vault.Block{}, false
}

// Page reads a link's "page=N" against a PDF document's pages.
func Page(n *vault.Note, sub string) (page, line int, text string, ok bool) {
	num, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sub), "page=")))
	if err != nil {
		return 0, 0, "", false
	}
	for i, p := range n.PageTexts() {
		if p.Number == num {
			return num, n.Pages[i].Line, p.Text, true
		}
	}
	return num, 0, "", false
}

// bodyLines splits a note's body; line l of the file is lines[l-BodyLine].
func bodyLines(n *vault.Note) []string { return strings.Split(n.Body, "\n") }

// SectionText is a heading and everything under it, up to the next
// heading of the same or a higher level.
func SectionText(n *vault.Note, h vault.Heading) string {
	lines := bodyLines(n)
	start, end := h.Line-n.BodyLine, len(lines)
	for _, o := range n.Headings {
		if o.Line > h.Line && o.Level <= h.Level {
			end = o.Line - n.BodyLine
			break
		}
	}
	if start < 0 || start >= len(lines) || end <= start {
		return ""
	}
	return strings.Join(lines[start:min(end, len(lines))], "\n")
}

// BlockText is the paragraph or list item a block id ends, without
// the id. An id alone on its line (after a blank line, as Obsidian writes
// them for tables, lists and quotes) names the whole block above it.
func BlockText(n *vault.Note, b vault.Block) string {
	lines := bodyLines(n)
	end := b.Line - n.BodyLine
	if end < 0 || end >= len(lines) {
		return ""
	}
	marker := "^" + b.ID
	standalone := strings.TrimSpace(lines[end]) == marker
	if standalone {
		end--
		for end >= 0 && strings.TrimSpace(lines[end]) == "" {
			end--
		}
		if end < 0 {
			return ""
		}
	}
	start := end
	if standalone || !isListLine(lines[end]) {
		for start > 0 && strings.TrimSpace(lines[start-1]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") {
			start--
		}
	}
	text := strings.TrimSpace(strings.Join(lines[start:end+1], "\n"))
	return strings.TrimSpace(strings.TrimSuffix(text, marker))
}

// isListLine reports a list item line ("- x", "* x", "+ x", "1. x").
func isListLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}
