package vault

import (
	"slices"
	"strings"
)

// Property links are the [[wikilinks]] and ![[embeds]] written in
// frontmatter values: Obsidian shows them in backlinks and the graph and
// rewrites them on rename, so they are links like the body's. A link counts
// only when the decoded YAML value holds it (a list item, a string, a
// string nested in lists or maps): an unquoted `[[X]]` is a YAML list, not
// a link, and a link in a YAML comment is no link. Markdown links in
// properties are not links in Obsidian either.

// propertyLinks returns the links in a note's frontmatter values, in file
// order; text is the normalised note text, fm its decoded frontmatter.
func propertyLinks(text string, fm map[string]any) []Link {
	if len(fm) == 0 {
		return nil
	}
	block, end := fence(text)
	if end < 0 || !strings.Contains(block, "[[") {
		return nil
	}
	spans, unplaced := matchPropertyLinks(strings.Split(block, "\n"), fm)
	if len(spans)+len(unplaced) == 0 {
		return nil // a note without links has nil Links, as a restored one does
	}
	links := make([]Link, 0, len(spans)+len(unplaced))
	for _, sp := range spans {
		links = append(links, sp.Link)
	}
	return append(links, unplaced...)
}

// PropertyLinkSpans finds the links of a note's frontmatter values with
// their offsets in the file's lines (Line is the 1-based file line,
// Start/End byte offsets in that line without its line ending), the way
// [Parse] finds them. text is the file as read (CRLF and a BOM are
// allowed). Unplaced are the links a value holds that cannot be located
// in the text as written (a YAML escape or a line break inside the link,
// a folded scalar): a rewriter must leave those alone.
func PropertyLinkSpans(text string) (spans []LinkSpan, unplaced []Link) {
	if !strings.Contains(text, "[[") {
		return nil, nil
	}
	norm := normalizeText([]byte(text))
	fm, _, _, _ := splitFrontmatter(norm)
	if len(fm) == 0 {
		return nil, nil
	}
	fenced, _ := fence(norm)
	lines := strings.Split(text, "\n")
	n := strings.Count(fenced, "\n") // CRLF → LF keeps the line count
	if 1+n > len(lines) {
		return nil, nil
	}
	block := make([]string, 0, n)
	for _, l := range lines[1 : 1+n] { // between the fence lines
		block = append(block, strings.TrimSuffix(l, "\r"))
	}
	spans, unplaced = matchPropertyLinks(block, fm)
	for i := range spans {
		sp := &spans[i]
		inner := sp.Raw[strings.Index(sp.Raw, "[[")+2 : len(sp.Raw)-2]
		ts, te := wikiTargetOffsets(inner)
		base := sp.End - 2 - len(inner)
		sp.TargetStart, sp.TargetEnd = base+ts, base+te
	}
	return spans, unplaced
}

// wantedLink is a link a decoded frontmatter value holds.
type wantedLink struct {
	key  string
	link Link
	used bool
}

// matchPropertyLinks pairs the links written on the frontmatter's lines
// (block: the lines between the fences; file line 2 is block[0]) with the
// links the decoded values hold. A written link is kept when a value of
// the key it is written under holds the same link; the links of values
// left unpaired come back as unplaced, on their key's line.
func matchPropertyLinks(block []string, fm map[string]any) ([]LinkSpan, []Link) {
	keys := make([]string, 0, len(fm))
	for k := range fm {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var wanted []wantedLink
	for _, k := range keys {
		for _, s := range stringLeaves(fm[k], nil) {
			if !strings.Contains(s, "[[") {
				continue
			}
			scanLinks(s, s, 0, func(sp LinkSpan) {
				if !sp.Markdown && !strings.Contains(sp.Raw, "\n") {
					wanted = append(wanted, wantedLink{key: k, link: sp.Link})
				}
			})
		}
	}
	if len(wanted) == 0 {
		return nil, nil
	}
	keyLine := map[string]int{}
	var spans []LinkSpan
	key := ""
	for i, line := range block {
		lineNo := i + 2
		if k, ok := topLevelKey(line); ok {
			key = k
			if _, seen := keyLine[k]; !seen {
				keyLine[k] = lineNo
			}
		}
		if !strings.Contains(line, "[[") {
			continue
		}
		scanLinks(line, line, lineNo, func(sp LinkSpan) {
			if sp.Markdown {
				return
			}
			raw := nfc(sp.Raw)
			j := slices.IndexFunc(wanted, func(w wantedLink) bool { return !w.used && w.key == key && w.link.Raw == raw })
			if j < 0 {
				return
			}
			wanted[j].used = true
			sp.Link = wanted[j].link
			sp.Raw, sp.Line, sp.Property = line[sp.Start:sp.End], lineNo, key
			spans = append(spans, sp)
		})
	}
	var unplaced []Link
	for _, w := range wanted {
		if !w.used {
			l := w.link
			l.Line, l.Property = max(keyLine[w.key], 2), w.key
			unplaced = append(unplaced, l)
		}
	}
	return spans, unplaced
}

// topLevelKey reads the key of a line that starts a top-level mapping entry
// ("key: value", "'my key':"), NFC like the decoded keys.
func topLevelKey(line string) (string, bool) {
	if line == "" || strings.ContainsRune(" \t-#[]{},&*!|>%@`?", rune(line[0])) {
		return "", false
	}
	if q := line[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(line[1:], q)
		if end < 0 || !strings.HasPrefix(strings.TrimLeft(line[end+2:], " \t"), ":") {
			return "", false
		}
		return nfc(line[1 : end+1]), true
	}
	for i := 0; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			return nfc(strings.TrimRight(line[:i], " \t")), true
		}
	}
	return "", false
}

// stringLeaves appends every string a frontmatter value holds (in lists
// and maps, maps in key order).
func stringLeaves(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = stringLeaves(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = stringLeaves(x[k], out)
		}
	}
	return out
}
