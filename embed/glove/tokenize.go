package glove

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxWordBytes drops longer tokens (hashes, base64, URLs without breaks):
// no GloVe word is that long, and the lookup buffer lives on the stack.
const maxWordBytes = 64

// contractions maps the stems Penn-Treebank tokenisation leaves before
// "n't" to the word they stand for: "can't" → "ca" "n't" → "can" "not".
var contractions = map[string]string{"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}

// clitics are the apostrophe suffixes GloVe's corpus split off as tokens
// ('s, 'll, …); the vocabulary shipped here has none of them, and they
// carry little meaning, so they are skipped.
var clitics = map[string]bool{"s": true, "ll": true, "re": true, "ve": true, "m": true, "d": true}

// Tokenizer maps text to rows of a GloVe table. It is safe for concurrent
// use and allocates nothing per token.
type Tokenizer struct {
	rows map[string]int32
	not  int32 // row of "not", or -1
}

// NewTokenizer indexes words (words[r] names row r). Words must be
// lower-case; a repeated word keeps its first row.
func NewTokenizer(words []string) (*Tokenizer, error) {
	t := &Tokenizer{rows: make(map[string]int32, len(words)), not: -1}
	for r, w := range words {
		if w == "" || len(w) > maxWordBytes {
			return nil, fmt.Errorf("glove: tokenizer: word %d (%q) is empty or longer than %d bytes", r, w, maxWordBytes)
		}
		if _, dup := t.rows[w]; !dup {
			t.rows[w] = int32(r)
		}
	}
	if r, ok := t.rows["not"]; ok {
		t.not = r
	}
	return t, nil
}

// Tokenize calls emit with the row of every known word of text. Text is
// NFKC-normalised and lower-cased, and split into runs of letters and
// digits, keeping single inner hyphens and apostrophes ("e-mail",
// "don't"). A run the vocabulary lacks is split at its hyphens, and
// English contractions are undone the way GloVe's tokeniser split them:
// "don't" → do + not, "can't" → can + not, "king's" → king ('s is
// dropped). Letters with diacritics the vocabulary lacks fall back to
// their base letters ("café" → cafe). Tokens longer than 64 bytes and
// everything else are skipped.
func (t *Tokenizer) Tokenize(text string, emit func(row int)) {
	if !isASCII(text) && norm.NFKC.QuickSpanString(text) < len(text) {
		text = norm.NFKC.String(text)
	}
	var arr [maxWordBytes + utf8.UTFMax]byte
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			if !asciiWordByte(c) {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		// A word starts at i; w collects it lower-cased, until it is
		// too long to be in the vocabulary.
		w := arr[:0]
		joined := false
	scan:
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf { // fast path: ASCII
				switch {
				case asciiWordByte(c):
				case (c == '-' || c == '\'') && i+1 < len(text) && wordAt(text, i+1):
					joined = true
				default:
					break scan
				}
				if len(w) <= maxWordBytes {
					if 'A' <= c && c <= 'Z' {
						c += 'a' - 'A'
					}
					w = append(w, c)
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			switch {
			case isWordRune(r):
			case (r == '\u2019' || r == '\u2010') && i+size < len(text) && wordAt(text, i+size):
				joined = true
			default:
				break scan
			}
			if len(w) <= maxWordBytes {
				w = appendLower(w, r)
			}
			i += size
		}
		if len(w) <= maxWordBytes {
			t.word(w, joined, emit)
		}
	}
}

// word emits a whole token, or its parts when the whole is unknown.
func (t *Tokenizer) word(w []byte, joined bool, emit func(row int)) {
	if t.lookup(w, emit) || !joined {
		return
	}
	for start, i := 0, 0; i <= len(w); i++ {
		if i == len(w) || w[i] == '-' {
			if i > start {
				t.part(w[start:i], emit)
			}
			start = i + 1
		}
	}
}

// part emits a hyphen-free piece, undoing contractions.
func (t *Tokenizer) part(p []byte, emit func(row int)) {
	if t.lookup(p, emit) {
		return
	}
	n := len(p)
	if n > 3 && string(p[n-3:]) == "n't" {
		stem := p[:n-3]
		if full, ok := contractions[string(stem)]; ok {
			t.lookup([]byte(full), emit)
		} else {
			t.lookup(stem, emit)
		}
		if t.not >= 0 {
			emit(int(t.not))
		}
		return
	}
	for start, i := 0, 0; i <= n; i++ {
		if i == n || p[i] == '\'' {
			if piece := p[start:i]; len(piece) > 0 && (start == 0 || !clitics[string(piece)]) {
				t.lookup(piece, emit)
			}
			start = i + 1
		}
	}
}

// lookup emits w's row if the vocabulary has w or, for non-ASCII w, its
// diacritic-free form.
func (t *Tokenizer) lookup(w []byte, emit func(row int)) bool {
	if r, ok := t.rows[string(w)]; ok {
		emit(int(r))
		return true
	}
	if isASCII(string(w)) {
		return false
	}
	var arr [maxWordBytes + utf8.UTFMax]byte
	f := arr[:0] // only ASCII bytes of w go in: never longer than w
	for i := 0; i < len(w); {
		if c := w[i]; c < utf8.RuneSelf {
			f = append(f, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(w[i:])
		i += size
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		// The canonical decomposition, from norm's tables: no allocation.
		d := norm.NFD.Properties(w[i-size : i]).Decomposition()
		if d == nil {
			return false // a letter without an ASCII base: not in an ASCII vocabulary
		}
		for j := 0; j < len(d); {
			r, n := utf8.DecodeRune(d[j:])
			j += n
			switch {
			case r < utf8.RuneSelf:
				f = append(f, byte(r))
			case !unicode.Is(unicode.Mn, r):
				return false
			}
		}
	}
	if r, ok := t.rows[string(f)]; ok {
		emit(int(r))
		return true
	}
	return false
}

// asciiWordByte reports ASCII letters and digits.
func asciiWordByte(c byte) bool {
	return (c|0x20)-'a' < 26 || c-'0' < 10
}

// wordAt reports whether a word rune starts at text[i].
func wordAt(text string, i int) bool {
	if c := text[i]; c < utf8.RuneSelf {
		return asciiWordByte(c)
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWordByte(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// appendLower appends r lower-cased, with every joiner as its ASCII form.
func appendLower(w []byte, r rune) []byte {
	switch {
	case 'A' <= r && r <= 'Z':
		return append(w, byte(r)+'a'-'A')
	case r < utf8.RuneSelf:
		return append(w, byte(r))
	case r == '\u2019':
		return append(w, '\'')
	case r == '\u2010':
		return append(w, '-')
	}
	return utf8.AppendRune(w, unicode.ToLower(r))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
