// Package analysis turns text into index terms: Unicode-aware word
// splitting, NFKC + lower-case + Latin diacritic folding, English stop words
// and Snowball stemming, and character bigrams for CJK scripts (which do not
// separate words with spaces). Every ranker and the snippet highlighter use
// the same analyzer, so a term means the same thing everywhere.
package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Mode selects how CJK runs are split.
type Mode int

const (
	// Index emits CJK unigrams and bigrams, so one-character queries match.
	Index Mode = iota
	// Query emits CJK bigrams (a lone character as a unigram), which rank
	// far better than unigrams.
	Query
)

// maxTermBytes drops longer tokens (hashes, base64 blobs).
const maxTermBytes = 64

// maxCached bounds the stem cache of a long-running server.
const maxCached = 1 << 19

// Analyzer produces terms. The zero value is not usable; call [New]. An
// Analyzer is safe for concurrent use and caches stems.
type Analyzer struct {
	stems *stemCache // folded word → stem
}

// New returns an analyzer.
func New() *Analyzer { return &Analyzer{stems: newStemCache()} }

// Each calls fn for every term of text with the byte span [start,end) it
// came from. Stop words produce no term.
func (a *Analyzer) Each(text string, mode Mode, fn func(term string, start, end int)) {
	a.each(text, mode, a.Term, fn)
}

// each is Each with the normalisation of a word (not of CJK grams) done
// by term.
func (a *Analyzer) each(text string, mode Mode, term func(string) string, fn func(term string, start, end int)) {
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case IsCJK(r):
			i = a.cjkRun(text, i, mode, fn)
		case isWordStart(r):
			j := wordEnd(text, i+size)
			if t := term(text[i:j]); t != "" {
				fn(t, i, j)
			}
			i = j
		default:
			i += size
		}
	}
}

// Terms appends the terms of text to dst.
func (a *Analyzer) Terms(dst []string, text string, mode Mode) []string {
	a.Each(text, mode, func(t string, _, _ int) { dst = append(dst, t) })
	return dst
}

// Term normalises one word: NFKC, lower case, Latin diacritics folded,
// stemmed; "" for a stop word or an over-long token.
func (a *Analyzer) Term(word string) string {
	if len(word) > maxTermBytes {
		return ""
	}
	w := fold(word)
	if w == "" || english.IsStopWord(w) {
		return ""
	}
	if !isASCIILetters(w) || len(w) <= 2 {
		return w
	}
	if s, ok := a.stems.get(w); ok {
		return s
	}
	s := english.Stem(w, false)
	a.stems.put(w, s)
	return s
}

// cjkRun emits the grams of the CJK run starting at i and returns its end.
func (a *Analyzer) cjkRun(text string, i int, mode Mode, fn func(string, int, int)) int {
	var starts [3]int // byte offsets of the last characters, ring of 3
	var plain [3]bool // whether they are already NFKC
	n, j := 0, i
	r, size := utf8.DecodeRuneInString(text[i:])
	for IsCJK(r) {
		// A character is a rune plus what composes with it (an NFD dakuten,
		// a half-width voiced mark); grams are emitted in NFKC so NFD and
		// half-width text match NFC, full-width text.
		end, next, nsize := j+size, rune(-1), 0
		if end < len(text) {
			next, nsize = decodeRune(text[end:])
			if next >= utf8.RuneSelf && !stableCJK(next) && !norm.NFKC.PropertiesString(text[end:]).BoundaryBefore() {
				size = max(size, norm.NFKC.NextBoundaryInString(text[j:], true))
				if end, next, nsize = j+size, -1, 0; end < len(text) {
					next, nsize = decodeRune(text[end:])
				}
			}
		}
		k := n % 3
		starts[k] = j
		plain[k] = stableCJK(r) && size == utf8.RuneLen(r) || norm.NFKC.IsNormalString(text[j:end])
		if mode == Index {
			fn(nfkc(text[j:end], plain[k]), j, end)
		}
		if n > 0 {
			q := (n - 1) % 3
			p := starts[q]
			fn(nfkc(text[p:end], plain[q] && plain[k]), p, end)
		}
		n++
		j, r, size = end, next, nsize
	}
	if mode == Query && n == 1 {
		fn(nfkc(text[i:j], plain[0]), i, j)
	}
	return j
}

// stableCJK reports whether r is in a common CJK block whose characters
// NFKC leaves alone and never composes with a preceding character (a fast
// path around normalisation).
func stableCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0xAC00 && r <= 0xD7A3 ||
		r >= 0x3041 && r <= 0x3096 || r >= 0x30A1 && r <= 0x30FA ||
		r == 0x30FC || r == 0x3005
}

func decodeRune(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

func nfkc(s string, plain bool) string {
	if plain {
		return s
	}
	return norm.NFKC.String(s)
}

// IsCJK reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul).
func IsCJK(r rune) bool {
	return stableCJK(r) || r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 0x30FC || r == 0x3005)
}

func isWordStart(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordEnd returns the end of the word that continues at i: letters, digits
// and combining marks (NFD text), but not CJK.
func wordEnd(text string, i int) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if IsCJK(r) || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			return i
		}
		i += size
	}
	return i
}

// fold lower-cases word, applies NFKC and strips diacritics from Latin
// letters ("Café" → "cafe"). Marks on other scripts carry meaning and stay.
func fold(word string) string {
	if isASCII(word) {
		return asciiLower(word)
	}
	w := strings.ToLower(norm.NFKC.String(word))
	d := norm.NFD.String(w)
	var b strings.Builder
	b.Grow(len(d))
	latinBase := false
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if latinBase {
				continue
			}
		} else {
			latinBase = unicode.Is(unicode.Latin, r)
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
