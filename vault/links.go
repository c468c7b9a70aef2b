package vault

import (
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseLinks extracts wikilinks, embeds and local markdown links from one
// line (code already masked). It also returns the line with every link
// blanked out, so that "#" inside a link is not read as a tag.
func parseLinks(line string, lineNo int) ([]Link, string) {
	var links []Link
	rest := scanLinks(line, line, lineNo, func(sp LinkSpan) { links = append(links, sp.Link) })
	return links, rest
}

// scanLinks emits the links of a line: wikilinks and embeds first, then
// markdown links. masked is line with code blanked (same byte offsets);
// Raw and offsets refer to line. It returns masked with every link blanked
// out too.
func scanLinks(line, masked string, lineNo int, emit func(LinkSpan)) string {
	if !strings.Contains(masked, "[[") && !strings.Contains(masked, "](") {
		return masked
	}
	blanked := []byte(masked)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			blanked[i] = ' '
		}
	}
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
		if k := strings.LastIndex(inner, "[["); k >= 0 { // "[[a [[b]]": the inner one wins
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
			emit(LinkSpan{Link: l, Start: from, End: stop})
		}
		blank(from, stop)
		i = stop
	}
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(string(blanked), -1) {
		target := strings.Trim(line[m[4]:m[5]], "<>")
		if l, ok := markdownLink(line[m[2]:m[3]], target); ok {
			l.Raw, l.Line = line[m[0]:m[1]], lineNo
			l.Embed = line[m[0]] == '!'
			emit(LinkSpan{Link: l, Start: m[0], End: m[1]})
		}
		blank(m[0], m[1])
	}
	return string(blanked)
}

// mdLinkRE matches [text](target) and ![alt](target "title").
var mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\((<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\)`)

// wikilink splits the inside of [[…]] into target, heading/block and alias.
// A table cell escapes the pipe as "\|".
func wikilink(inner string) (Link, bool) {
	var l Link
	if k := strings.IndexByte(inner, '|'); k >= 0 {
		target := inner[:k]
		l.Alias = strings.TrimSpace(inner[k+1:])
		inner = strings.TrimSuffix(target, `\`)
	}
	target, sub, _ := strings.Cut(inner, "#")
	l.Target = strings.TrimSpace(target)
	if sub = strings.TrimSpace(sub); strings.HasPrefix(sub, "^") {
		l.Block = sub[1:]
	} else {
		l.Heading = sub
	}
	if l.Target == "" && l.Heading == "" && l.Block == "" {
		return Link{}, false
	}
	return l, true
}

// markdownLink accepts links to local files; URLs and pure anchors are not
// vault links.
func markdownLink(text, target string) (Link, bool) {
	if target == "" || strings.HasPrefix(target, "#") || strings.Contains(target, "://") ||
		strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "obsidian:") {
		return Link{}, false
	}
	if dec, err := url.PathUnescape(target); err == nil {
		target = dec
	}
	l, ok := wikilink(target)
	if !ok {
		return Link{}, false
	}
	l.Alias, l.Markdown = strings.TrimSpace(text), true
	return l, true
}

// urlRE finds bare URLs, whose "#fragment" is not a tag.
var urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://\S+`)

func maskURLs(line string) string {
	if !strings.Contains(line, "://") {
		return line
	}
	return urlRE.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
}

// tagSpans finds inline #tags: '#' at the start or after a space or an
// opening punctuation mark, followed by letters, digits, '_', '-' or '/',
// with at least one non-digit (Obsidian's rule). Line is 0 in the result.
func tagSpans(line string) []TagSpan {
	if strings.IndexByte(line, '#') < 0 {
		return nil
	}
	var tags []TagSpan
	for i := 0; i < len(line); i++ {
		if line[i] != '#' || !tagBoundary(line, i) {
			continue
		}
		j := i + 1
		for j < len(line) {
			r, size := utf8.DecodeRuneInString(line[j:])
			if !isTagRune(r) {
				break
			}
			j += size
		}
		tag := strings.TrimRight(line[i+1:j], "/")
		if tag != "" && strings.ContainsFunc(tag, func(r rune) bool { return !unicode.IsDigit(r) }) {
			tags = append(tags, TagSpan{Start: i, End: i + 1 + len(tag), Tag: tag})
		}
		i = j - 1
	}
	return tags
}

func tagBoundary(line string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(line[:i])
	return unicode.IsSpace(r) || strings.ContainsRune(`([{,;:!?"'`, r)
}

func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '/'
}
