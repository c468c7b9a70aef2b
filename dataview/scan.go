package dataview

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The parser's low-level scanning: positions, white space, words.

func (p *parser) eof() bool    { return p.i >= len(p.src) }
func (p *parser) rest() string { return p.src[p.i:] }
func (p *parser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.src[p.i]
}

func (p *parser) ws() {
	for !p.eof() {
		r, size := utf8.DecodeRuneInString(p.rest())
		if !unicode.IsSpace(r) {
			return
		}
		p.i += size
	}
}

// requireSpace insists on white space after a keyword; a data command may
// also be followed directly by a bracket, quote, tag or sign (FROM"x",
// WHERE(a)). A data command needs something after it.
func (p *parser) requireSpace(after string) {
	command := after != "LIST" && after != "TABLE"
	if p.eof() {
		if command {
			p.fail(p.i, "%s needs something after it", after)
		}
		return
	}
	r, _ := utf8.DecodeRuneInString(p.rest())
	if unicode.IsSpace(r) || command && strings.ContainsRune(`("#[!-`, r) {
		return
	}
	p.fail(p.i, "expected a space after %s", after)
}

// peekWord returns the ASCII letters at the position (without moving).
func (p *parser) peekWord() string {
	j := p.i
	for j < len(p.src) && (p.src[j] >= 'a' && p.src[j] <= 'z' || p.src[j] >= 'A' && p.src[j] <= 'Z') {
		j++
	}
	if p.identAt(j) {
		return p.src[p.i:j] + "…" // part of a longer name: never a keyword
	}
	return p.src[p.i:j]
}

// keyword consumes kw (any case) when it stands alone at the position.
func (p *parser) keyword(kw string) bool {
	if strings.EqualFold(p.peekWord(), kw) {
		p.i += len(kw)
		return true
	}
	return false
}

func (p *parser) expect(c byte, why string) {
	if p.peek() != c {
		p.fail(p.i, "expected '%c' %s but found %s", c, why, p.describe())
	}
	p.i++
}

// describe names what is at the position, for error messages.
func (p *parser) describe() string {
	if p.eof() {
		return "the end of the query"
	}
	rest := p.rest()
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	tok := rest[:end]
	if utf8.RuneCountInString(tok) > 24 {
		r := []rune(tok)
		tok = string(r[:24]) + "…"
	}
	return "\"" + tok + "\""
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
