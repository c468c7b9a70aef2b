package pdf

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// cleanText normalises extracted page text for indexing: invalid UTF-8,
// U+FFFD (undecodable codes), private-use code points (glyph pieces of math
// and symbol fonts, e.g. big braces), soft hyphens and zero-width marks are
// dropped; control characters become spaces and line separators newlines;
// Latin typographic ligatures (ﬁ, ﬂ, ...) are spelled out so that words
// containing them match their plain spelling; the result is in NFC, with
// runs of whitespace inside a line collapsed to one space, every line
// trimmed and blank lines removed.
func cleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // invalid UTF-8 yields U+FFFD, dropped below
		switch {
		case r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case unicode.IsControl(r):
			b.WriteByte(' ')
		case r == unicode.ReplacementChar || r == '\u00ad' || r == '\u200b' || r == '\ufeff' ||
			unicode.Is(unicode.Co, r):
			// dropped
		case r >= '\ufb00' && r <= '\ufb06':
			b.WriteString(ligature(r))
		default:
			b.WriteRune(r)
		}
	}
	normalized := norm.NFC.String(b.String())

	b.Reset()
	for line := range strings.SplitSeq(normalized, "\n") {
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(words, " "))
	}
	return b.String()
}

// ligature spells out one of the Latin ligatures U+FB00..U+FB06.
func ligature(r rune) string {
	switch r {
	case '\ufb00':
		return "ff"
	case '\ufb01':
		return "fi"
	case '\ufb02':
		return "fl"
	case '\ufb03':
		return "ffi"
	case '\ufb04':
		return "ffl"
	default: // U+FB05 long s t, U+FB06 s t
		return "st"
	}
}

// trimRightSpace removes trailing white space.
func trimRightSpace(s string) string {
	return strings.TrimRightFunc(s, unicode.IsSpace)
}
