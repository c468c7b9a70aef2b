package vault

import "strings"

// LinkSpan is a link found on one line, with the byte offsets a rewriter
// needs. Raw == line[Start:End].
type LinkSpan struct {
	Link
	Start, End int
	// TargetStart and TargetEnd delimit the path part as written: for a
	// wikilink the target without surrounding space, "#subpath" or
	// "|alias"; for a markdown link the destination before any '#', inside
	// the <…> if any, still URL-encoded. They are equal when the target is
	// empty ([[#Heading]]).
	TargetStart, TargetEnd int
	// Angle is a markdown destination written in <…>.
	Angle bool
}

// LinkSpans finds the links of one body line exactly as the parser does
// (inline code masked; the caller skips lines inside code blocks), with
// their offsets in line. Links come in the parser's order: wikilinks and
// embeds first, then markdown links.
func LinkSpans(line string, lineNo int) []LinkSpan {
	if !strings.Contains(line, "[[") && !strings.Contains(line, "](") {
		return nil
	}
	masked := maskCode(line)
	var spans []LinkSpan
	blanked := []byte(masked)
	for i := 0; ; {
		j := strings.Index(masked[i:], "[[")
		if j < 0 {
			break
		}
		start := i + j
		end := strings.Index(masked[start+2:], "]]")
		if end < 0 {
			break
		}
		inner := masked[start+2 : start+2+end]
		if k := strings.LastIndex(inner, "[["); k >= 0 {
			i = start + 2 + k
			continue
		}
		stop := start + 2 + end + 2
		from := start
		embed := start > 0 && masked[start-1] == '!'
		if embed {
			from--
		}
		if l, ok := wikilink(inner); ok {
			l.Raw, l.Embed, l.Line = line[from:stop], embed, lineNo
			ts, te := wikiTargetOffsets(inner)
			spans = append(spans, LinkSpan{Link: l, Start: from, End: stop, TargetStart: start + 2 + ts, TargetEnd: start + 2 + te})
		}
		for k := from; k < stop; k++ {
			blanked[k] = ' '
		}
		i = stop
	}
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(string(blanked), -1) {
		dest := line[m[4]:m[5]]
		if l, ok := markdownLink(line[m[2]:m[3]], strings.Trim(dest, "<>")); ok {
			l.Raw, l.Line = line[m[0]:m[1]], lineNo
			l.Embed = line[m[0]] == '!'
			sp := LinkSpan{Link: l, Start: m[0], End: m[1]}
			inside := strings.TrimLeft(dest, "<")
			sp.TargetStart = m[4] + len(dest) - len(inside)
			inside = strings.TrimRight(inside, ">")
			sp.Angle = sp.TargetStart > m[4]
			if h := strings.IndexByte(inside, '#'); h >= 0 {
				inside = inside[:h]
			}
			sp.TargetEnd = sp.TargetStart + len(inside)
			spans = append(spans, sp)
		}
	}
	return spans
}

// wikiTargetOffsets returns where the target sits inside the text between
// "[[" and "]]", mirroring wikilink.
func wikiTargetOffsets(inner string) (int, int) {
	seg := inner
	if k := strings.IndexByte(seg, '|'); k >= 0 {
		seg = strings.TrimSuffix(seg[:k], `\`)
	}
	if h := strings.IndexByte(seg, '#'); h >= 0 {
		seg = seg[:h]
	}
	trimmed := strings.TrimSpace(seg)
	if trimmed == "" {
		return 0, 0
	}
	lead := strings.Index(seg, trimmed)
	return lead, lead + len(trimmed)
}
