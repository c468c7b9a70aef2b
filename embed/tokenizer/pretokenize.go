package tokenizer

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// span is a piece of text, as byte offsets.
type span struct{ start, end int }

// A preTokenizer is one step of a tokenizer.json "pre_tokenizer". It
// appends to out the pieces of every span of in over text. A step that
// rewrites the text (Metaspace) writes the new text to scratch and returns
// it with rewritten set; the returned spans then index it. atStart says
// the text begins at the start of the input (no added token before it).
type preTokenizer interface {
	split(text []byte, in []span, scratch []byte, out []span, atStart bool) (newText []byte, pieces []span, rewritten bool)
}

// splitBehavior says what happens to the characters a pre-tokenizer splits
// on, as tokenizers' SplitDelimiterBehavior.
type splitBehavior int

const (
	removed splitBehavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

// isPunct is tokenizers' is_bert_punc: ASCII punctuation (which includes
// symbols such as $ + < = > ^ ` | ~) or a Unicode punctuation character.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r)
}

// isWordChar is the Unicode \w of Rust's regex crate.
func isWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.Nd, unicode.Nl, unicode.Pc) || r == 0x200C || r == 0x200D
}

// isNumeric is Rust's char::is_numeric (Unicode categories Nd, Nl, No).
func isNumeric(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// splitFunc splits every span on the characters pred matches.
func splitFunc(text []byte, in, out []span, pred func(rune) bool, how splitBehavior) []span {
	emit := func(out []span, s, e int) []span {
		if e > s {
			out = append(out, span{s, e})
		}
		return out
	}
	for _, sp := range in {
		start := sp.start // start of the pending piece
		for i := sp.start; i < sp.end; {
			r, size := decodeRune(text[i:sp.end])
			if !pred(r) {
				i += size
				continue
			}
			switch how {
			case removed:
				out = emit(out, start, i)
				start = i + size
			case isolated:
				out = emit(out, start, i)
				out = emit(out, i, i+size)
				start = i + size
			case mergedWithPrevious:
				out = emit(out, start, i+size)
				start = i + size
			case mergedWithNext:
				out = emit(out, start, i)
				start = i
			case contiguous:
				out = emit(out, start, i)
				j := i + size
				for j < sp.end {
					r2, s2 := decodeRune(text[j:sp.end])
					if !pred(r2) {
						break
					}
					j += s2
				}
				out = emit(out, i, j)
				start = j
				i = j
				continue
			}
			i += size
		}
		out = emit(out, start, sp.end)
	}
	return out
}

// bertPreTokenizer is "BertPreTokenizer": split on whitespace (dropped)
// and on punctuation (each character its own piece).
type bertPreTokenizer struct{}

func (bertPreTokenizer) split(text []byte, in []span, _ []byte, out []span, _ bool) ([]byte, []span, bool) {
	for _, sp := range in {
		start := sp.start
		for i := sp.start; i < sp.end; {
			r, size := decodeRune(text[i:sp.end])
			switch {
			case isSpace(r):
				if i > start {
					out = append(out, span{start, i})
				}
				start = i + size
			case isPunct(r):
				if i > start {
					out = append(out, span{start, i})
				}
				out = append(out, span{i, i + size})
				start = i + size
			}
			i += size
		}
		if sp.end > start {
			out = append(out, span{start, sp.end})
		}
	}
	return text, out, false
}

// whitespacePreTokenizer is "Whitespace": the pieces matched by
// `\w+|[^\w\s]+`.
type whitespacePreTokenizer struct{}

func (whitespacePreTokenizer) split(text []byte, in []span, _ []byte, out []span, _ bool) ([]byte, []span, bool) {
	const none, word, other = 0, 1, 2
	for _, sp := range in {
		start, kind := sp.start, none
		for i := sp.start; i < sp.end; {
			r, size := decodeRune(text[i:sp.end])
			k := other
			switch {
			case isWordChar(r):
				k = word
			case isSpace(r):
				k = none
			}
			if k != kind {
				if kind != none && i > start {
					out = append(out, span{start, i})
				}
				start, kind = i, k
			}
			i += size
		}
		if kind != none && sp.end > start {
			out = append(out, span{start, sp.end})
		}
	}
	return text, out, false
}

// funcPreTokenizer splits on a character class: "WhitespaceSplit",
// "Punctuation" and "Digits".
type funcPreTokenizer struct {
	pred func(rune) bool
	how  splitBehavior
}

func (p funcPreTokenizer) split(text []byte, in []span, _ []byte, out []span, _ bool) ([]byte, []span, bool) {
	return text, splitFunc(text, in, out, p.pred, p.how), false
}

// prependScheme says when Metaspace adds the replacement in front of a piece.
type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst
	prependNever
)

// metaspacePreTokenizer is "Metaspace": spaces become the replacement
// character (▁), which is also prepended per the scheme; with split set,
// every replacement character starts a new piece.
type metaspacePreTokenizer struct {
	replacement []byte
	prepend     prependScheme
	splitOnRep  bool
}

func (m metaspacePreTokenizer) splitPieces(text []byte, in []span, scratch []byte, out []span, atStart bool) ([]byte, []span) {
	rep := m.replacement
	for _, sp := range in {
		piece := text[sp.start:sp.end]
		start := len(scratch)
		startsWithRep := len(piece) > 0 && (piece[0] == ' ' || bytes.HasPrefix(piece, rep))
		if !startsWithRep && (m.prepend == prependAlways || (m.prepend == prependFirst && atStart && sp.start == 0)) {
			scratch = append(scratch, rep...)
		}
		for _, c := range piece {
			if c == ' ' {
				scratch = append(scratch, rep...)
			} else {
				scratch = append(scratch, c)
			}
		}
		end := len(scratch)
		if !m.splitOnRep {
			if end > start {
				out = append(out, span{start, end})
			}
			continue
		}
		// MergedWithNext: each replacement character opens a new piece.
		pieceStart := start
		for i := start; i < end; {
			if bytes.HasPrefix(scratch[i:end], rep) {
				if i > pieceStart {
					out = append(out, span{pieceStart, i})
				}
				pieceStart = i
				i += len(rep)
				continue
			}
			i++
		}
		if end > pieceStart {
			out = append(out, span{pieceStart, end})
		}
	}
	return scratch, out
}

func (m metaspacePreTokenizer) split(text []byte, in []span, scratch []byte, out []span, atStart bool) ([]byte, []span, bool) {
	scratch, out = m.splitPieces(text, in, scratch, out, atStart)
	return scratch, out, true
}
