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
	var spans []LinkSpan
	scanLinks(line, maskCode(line), lineNo, func(sp LinkSpan) { spans = append(spans, sp) })
	for i := range spans {
		sp := &spans[i]
		if !sp.Markdown {
			inner := line[sp.Start:sp.End]
			inner = inner[strings.Index(inner, "[[")+2 : len(inner)-2]
			ts, te := wikiTargetOffsets(inner)
			base := sp.End - 2 - len(inner)
			sp.TargetStart, sp.TargetEnd = base+ts, base+te
			continue
		}
		markdownTargetOffsets(line, sp)
	}
	return spans
}

// markdownTargetOffsets sets the target offsets of a markdown link: the
// destination before any '#', inside the <…> if any.
func markdownTargetOffsets(line string, sp *LinkSpan) {
	raw := line[sp.Start:sp.End]
	m := mdLinkRE.FindStringSubmatchIndex(raw)
	dest := raw[m[4]:m[5]]
	inside := strings.TrimLeft(dest, "<")
	sp.TargetStart = sp.Start + m[4] + len(dest) - len(inside)
	inside = strings.TrimRight(inside, ">")
	sp.Angle = sp.TargetStart > sp.Start+m[4]
	if h := strings.IndexByte(inside, '#'); h >= 0 {
		inside = inside[:h]
	}
	sp.TargetEnd = sp.TargetStart + len(inside)
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
