package eval

import (
	"fmt"
	"strings"
)

// EscapeDocID makes a document id safe for a whitespace-separated TREC
// line: '%', whitespace and control characters become %XX (so
// "Notes/My Note.md" is written "Notes/My%20Note.md"). Ids without such
// characters (BEIR ids, most paths) are unchanged. UnescapeDocID reverses
// it.
func EscapeDocID(id string) string {
	if !strings.ContainsFunc(id, needsEscape) {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if needsEscape(rune(c)) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// needsEscape reports the ASCII bytes EscapeDocID encodes; bytes of
// multi-byte UTF-8 characters (≥ 0x80) are kept as they are.
func needsEscape(r rune) bool {
	return r == '%' || r <= ' ' || r == 0x7f
}

// UnescapeDocID decodes the %XX sequences EscapeDocID writes. A '%' not
// followed by two hex digits is kept literally, so an unescaped id that
// happens to hold one still reads back as itself.
func UnescapeDocID(id string) string {
	if !strings.Contains(id, "%") {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] == '%' && i+2 < len(id) && isHex(id[i+1]) && isHex(id[i+2]) {
			b.WriteByte(unhex(id[i+1])<<4 | unhex(id[i+2]))
			i += 2
			continue
		}
		b.WriteByte(id[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
