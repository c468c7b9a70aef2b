package tokenizer

import (
	"bytes"
	"regexp"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A normalizer is one step of a tokenizer.json "normalizer". It appends
// the normalised form of src to dst and returns the extended dst; src and
// dst never share memory.
type normalizer interface {
	normalize(dst, src []byte) []byte
}

// decodeRune decodes the rune at the start of b; invalid UTF-8 reads as
// U+FFFD, one byte at a time, as it does when Python decodes with
// errors="replace".
func decodeRune(b []byte) (rune, int) {
	if b[0] < utf8.RuneSelf {
		return rune(b[0]), 1
	}
	return utf8.DecodeRune(b)
}

// isSpace is Rust's char::is_whitespace (the Unicode White_Space property).
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

// isOther reports the Unicode "Other" categories (Cc, Cf, Cs, Co, Cn).
func isOther(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	return !unicode.IsGraphic(r) && r != 0x2028 && r != 0x2029
}

// isChinese reports the CJK ideograph blocks BertNormalizer pads with spaces.
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// appendLower appends the lowercase form of r the way Rust's
// char::to_lowercase does: one rune, except U+0130 which becomes two.
func appendLower(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, byte(r))
	}
	if r == 0x130 {
		return append(dst, "i\u0307"...)
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// bertNormalizer is HuggingFace's BertNormalizer: drop control characters
// and map whitespace to ' ', pad CJK ideographs with spaces, strip accents
// (NFD, then drop nonspacing marks) and lowercase, in that order.
type bertNormalizer struct {
	cleanText, chinese, stripAccents, lowercase bool
}

func (n bertNormalizer) normalize(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			i++
			if n.cleanText {
				switch {
				case c == '\t' || c == '\n' || c == '\r':
					c = ' '
				case c < 0x20 || c == 0x7f:
					continue
				}
			}
			if n.lowercase && c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			continue
		}
		r, size := decodeRune(src[i:])
		raw := src[i : i+size]
		i += size
		if n.cleanText {
			if r == utf8.RuneError || isOther(r) {
				continue
			}
			if isSpace(r) {
				dst = append(dst, ' ')
				continue
			}
		}
		pad := n.chinese && isChinese(r)
		if pad {
			dst = append(dst, ' ')
		}
		if n.stripAccents {
			dst = n.appendStripped(dst, r, raw)
		} else if n.lowercase {
			dst = appendLower(dst, r)
		} else {
			dst = append(dst, raw...)
		}
		if pad {
			dst = append(dst, ' ')
		}
	}
	return dst
}

// appendStripped appends the NFD decomposition of r (whose UTF-8 is raw)
// without its nonspacing marks, lowercased if configured. Decomposing one
// character at a time skips NFD's reordering of combining marks, which
// only matters among marks, and those are dropped or kept in place.
func (n bertNormalizer) appendStripped(dst []byte, r rune, raw []byte) []byte {
	emit := func(dst []byte, r rune) []byte {
		switch {
		case unicode.Is(unicode.Mn, r):
			return dst
		case n.lowercase:
			return appendLower(dst, r)
		default:
			return utf8.AppendRune(dst, r)
		}
	}
	if r >= hangulBase && r < hangulBase+hangulCount {
		// Hangul syllables decompose algorithmically into conjoining jamo.
		s := r - hangulBase
		dst = emit(dst, 0x1100+s/588)
		dst = emit(dst, 0x1161+s%588/28)
		if t := s % 28; t != 0 {
			dst = emit(dst, 0x11A7+t)
		}
		return dst
	}
	d := norm.NFD.Properties(raw).Decomposition()
	if d == nil {
		return emit(dst, r)
	}
	for j := 0; j < len(d); {
		pr, ps := decodeRune(d[j:])
		j += ps
		dst = emit(dst, pr)
	}
	return dst
}

// The Hangul syllable block, which Unicode decomposes by formula.
const (
	hangulBase  = 0xAC00
	hangulCount = 11172
)

// lowercaseNormalizer is the "Lowercase" normalizer.
type lowercaseNormalizer struct{}

func (lowercaseNormalizer) normalize(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, size := decodeRune(src[i:])
		i += size
		dst = appendLower(dst, r)
	}
	return dst
}

// unicodeNormalizer is one of "NFC", "NFD", "NFKC" and "NFKD".
type unicodeNormalizer struct{ form norm.Form }

func (n unicodeNormalizer) normalize(dst, src []byte) []byte {
	return n.form.Append(dst, src...)
}

// stripAccentsNormalizer is "StripAccents": it drops every combining mark
// (it does not decompose; tokenizers put NFD or NFKD in front of it).
type stripAccentsNormalizer struct{}

func (stripAccentsNormalizer) normalize(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, size := decodeRune(src[i:])
		if r < utf8.RuneSelf || !unicode.Is(unicode.M, r) {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}

// stripNormalizer is "Strip": trim whitespace on the left and/or right.
type stripNormalizer struct{ left, right bool }

func (n stripNormalizer) normalize(dst, src []byte) []byte {
	if n.left {
		src = bytes.TrimLeftFunc(src, isSpace)
	}
	if n.right {
		src = bytes.TrimRightFunc(src, isSpace)
	}
	return append(dst, src...)
}

// prependNormalizer is "Prepend": it adds a prefix to non-empty text.
type prependNormalizer struct{ prefix string }

func (n prependNormalizer) normalize(dst, src []byte) []byte {
	if len(src) == 0 {
		return dst
	}
	return append(append(dst, n.prefix...), src...)
}

// replaceStringNormalizer is "Replace" with a literal pattern.
type replaceStringNormalizer struct{ pattern, content string }

func (n replaceStringNormalizer) normalize(dst, src []byte) []byte {
	for {
		i := bytes.Index(src, []byte(n.pattern))
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(append(dst, src[:i]...), n.content...)
		src = src[i+len(n.pattern):]
	}
}

// runeMapNormalizer is a run of "Replace" normalizers whose patterns are
// single characters, fused into one pass. Fusing is only done when no
// pattern occurs in the content of an earlier replacement, so the result
// equals applying them one after another.
type runeMapNormalizer struct {
	ascii [utf8.RuneSelf]string
	isSet [utf8.RuneSelf]bool
	other map[rune]string
}

func (n *runeMapNormalizer) normalize(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if n.isSet[c] {
				dst = append(dst, n.ascii[c]...)
			} else {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := decodeRune(src[i:])
		if s, ok := n.other[r]; ok && size > 1 { // size 1: invalid UTF-8, not a real U+FFFD
			dst = append(dst, s...)
		} else {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}

// spaceRunNormalizer replaces runs of at least min spaces (Unicode
// whitespace when unicodeSpace, else ' ' only) with content. It implements
// the "Replace" regexes `\s+`, ` +` and ` {2,}` without a regexp engine.
type spaceRunNormalizer struct {
	unicodeSpace bool
	min          int
	content      string
}

func (n spaceRunNormalizer) normalize(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		r, size := decodeRune(src[i:])
		if !(r == ' ' || (n.unicodeSpace && isSpace(r))) {
			dst = append(dst, src[i:i+size]...)
			i += size
			continue
		}
		start, count := i, 0
		for i < len(src) {
			r, size := decodeRune(src[i:])
			if !(r == ' ' || (n.unicodeSpace && isSpace(r))) {
				break
			}
			i += size
			count++
		}
		if count >= n.min {
			dst = append(dst, n.content...)
		} else {
			dst = append(dst, src[start:i]...)
		}
	}
	return dst
}

// regexpNormalizer is "Replace" with any other regex. Go's RE2 syntax is
// close to Oniguruma's for the simple patterns tokenizers use; the classes
// \s, \d and \w are widened to Unicode as Oniguruma has them.
type regexpNormalizer struct {
	re      *regexp.Regexp
	content []byte
}

func (n regexpNormalizer) normalize(dst, src []byte) []byte {
	return append(dst, n.re.ReplaceAllLiteral(src, n.content)...)
}
