package dataview

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// source reads a FROM expression: atoms joined by and/or (one precedence,
// left to right, as in Dataview).
func (p *parser) source() source {
	p.enter()
	defer p.leave()
	p.ws()
	left := p.sourceAtom()
	for {
		save := p.i
		p.ws()
		pos := p.i
		and, ok := p.boolOp()
		if !ok {
			p.i = save
			return left
		}
		p.ws()
		left = &binSource{pos: pos, and: and, left: left, right: p.sourceAtom()}
	}
}

func (p *parser) sourceAtom() source {
	p.enter()
	defer p.leave()
	pos := p.i
	switch c := p.peek(); {
	case c == '(':
		p.i++
		s := p.source()
		p.ws()
		p.expect(')', "to close the parenthesis")
		return s
	case c == '-' || c == '!':
		p.i++
		return &negSource{pos: pos, child: p.sourceAtom()}
	case c == '"':
		path := norm.NFC.String(p.stringLit())
		return &folderSource{pos: pos, path: path}
	case c == '#':
		p.i++
		tag := p.tagName()
		if tag == "" {
			p.fail(pos, "expected a tag name after #")
		}
		return &tagSource{pos: pos, tag: norm.NFC.String(tag)}
	case strings.HasPrefix(p.rest(), "[["):
		l := p.linkLit()
		p.needTarget(l, pos)
		return &linkSource{pos: pos, target: l.Path}
	case hasPrefixFold(p.rest(), "outgoing("):
		p.i += len("outgoing(")
		p.ws()
		if !strings.HasPrefix(p.rest(), "[[") {
			p.fail(p.i, "outgoing( takes a [[link]]")
		}
		l := p.linkLit()
		p.needTarget(l, pos)
		p.ws()
		p.expect(')', "to close outgoing(")
		return &linkSource{pos: pos, target: l.Path, outgoing: true}
	case hasPrefixFold(p.rest(), "csv("):
		p.unsupported(pos, "csv() sources are not supported")
	}
	p.fail(pos, "expected a source (\"folder\", #tag, [[note]] or outgoing([[note]])) but found %s", p.describe())
	return nil
}

// tagName reads the characters Dataview allows in a tag.
func (p *parser) tagName() string {
	start := p.i
	for !p.eof() {
		r, size := utf8.DecodeRuneInString(p.rest())
		if !(unicode.IsLetter(r) || isASCIIDigit(r) || r == '_' || r == '/' || r == '-' || isEmoji(r)) {
			break
		}
		p.i += size
	}
	return p.src[start:p.i]
}

// boolOp reads and/or/&/| and reports whether it was "and".
func (p *parser) boolOp() (and, ok bool) {
	switch {
	case p.peek() == '&':
		p.i++
		return true, true
	case p.peek() == '|':
		p.i++
		return false, true
	case p.keyword("AND"):
		return true, true
	case p.keyword("OR"):
		return false, true
	}
	return false, false
}
