package pdf

import (
	"math"
	"strconv"
)

// tokenKind classifies the tokens of lexer.
type tokenKind int

const (
	tokEOF        tokenKind = iota
	tokInt                  // integer, in token.n
	tokName                 // /Name, decoded, in token.s
	tokKeyword              // bare word (obj, xref, R, ...) or other number, in token.s
	tokDictOpen             // <<
	tokDictClose            // >>
	tokArrayOpen            // [
	tokArrayClose           // ]
	tokString               // (literal) or <hex>; content not kept
	tokOther                // { or } or a stray delimiter
)

// token is one lexical token.
type token struct {
	kind tokenKind
	s    string
	n    int64
}

// lexer is a minimal PDF tokenizer over the bytes of a file. It is used to
// vet the cross-reference chain (see checkXref) before the PDF library
// reads it, and always makes progress, so it cannot loop.
type lexer struct {
	data     []byte
	pos      int
	depth    int  // nesting of the object being parsed
	values   int  // values parsed so far
	overflow bool // more than maxParsedValues values were parsed
}

// Bounds on the objects the lexer parses (see object).
const (
	// maxLexerDepth bounds the nesting of objects parsed. It equals the PDF
	// library's own limit, so that every object the library can parse is
	// parsed here too (a guard that gave up earlier could be bypassed).
	maxLexerDepth = 1000
	// maxParsedValues bounds the values parsed by one lexer: objects that
	// take more to vet are refused (see errTooComplex).
	maxParsedValues = 1 << 18
)

// next returns the next token, skipping white space and comments.
func (l *lexer) next() token {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		if isPDFSpace(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		break
	}
	if l.pos >= len(l.data) {
		return token{kind: tokEOF}
	}
	c := l.data[l.pos]
	l.pos++
	switch c {
	case '<':
		if l.pos < len(l.data) && l.data[l.pos] == '<' {
			l.pos++
			return token{kind: tokDictOpen}
		}
		for l.pos < len(l.data) && l.data[l.pos] != '>' {
			l.pos++
		}
		l.pos++
		return token{kind: tokString}
	case '>':
		if l.pos < len(l.data) && l.data[l.pos] == '>' {
			l.pos++
			return token{kind: tokDictClose}
		}
		return token{kind: tokOther}
	case '(':
		l.skipLiteralString()
		return token{kind: tokString}
	case '[':
		return token{kind: tokArrayOpen}
	case ']':
		return token{kind: tokArrayClose}
	case '/':
		return token{kind: tokName, s: l.name()}
	case ')', '{', '}':
		return token{kind: tokOther}
	}
	start := l.pos - 1
	for l.pos < len(l.data) && !isPDFDelimOrSpace(l.data[l.pos]) {
		l.pos++
	}
	word := string(l.data[start:l.pos])
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return token{kind: tokInt, n: n, s: word}
	}
	return token{kind: tokKeyword, s: word}
}

// skipLiteralString moves past a (string) whose opening parenthesis has
// been read, honouring nesting and backslash escapes.
func (l *lexer) skipLiteralString() {
	for depth := 1; l.pos < len(l.data) && depth > 0; l.pos++ {
		switch l.data[l.pos] {
		case '\\':
			l.pos++
		case '(':
			depth++
		case ')':
			depth--
		}
	}
}

// name reads a name whose slash has been read, decoding #xx escapes.
func (l *lexer) name() string {
	var b []byte
	for l.pos < len(l.data) && !isPDFDelimOrSpace(l.data[l.pos]) {
		c := l.data[l.pos]
		l.pos++
		if c == '#' && l.pos+1 < len(l.data) && isHexDigit(l.data[l.pos]) && isHexDigit(l.data[l.pos+1]) {
			v, _ := strconv.ParseUint(string(l.data[l.pos:l.pos+2]), 16, 8)
			c = byte(v)
			l.pos += 2
		}
		b = append(b, c)
	}
	return string(b)
}

// pkind classifies the values parsed by lexer.object.
type pkind int

const (
	pNull   pkind = iota
	pBool         // true or false
	pInt          // integer, in pval.n
	pReal         // other number
	pName         // name, in pval.s
	pString       // string; content not kept
	pRef          // indirect reference: object pval.n, generation pval.gen
	pArray        // array, in pval.arr
	pDict         // dictionary, in pval.dict
	pStream       // stream: its dictionary in pval.dict, its data offset in pval.n
	pObjDef       // nested "n g obj ... endobj" (which the library accepts)
)

// pval is a parsed PDF object.
type pval struct {
	kind pkind
	n    int64
	gen  int64
	s    string
	arr  []pval
	dict map[string]pval
}

// key returns the value of a dictionary or stream entry (null if absent).
func (v pval) key(k string) pval { return v.dict[k] }

// object parses the next object the way the PDF library's readObject does
// (github.com/ledongthuc/pdf lex.go), so that whatever the library accepts
// is seen here as the library sees it: "]" and ">>" where a value is due
// are null, indirect references are recognised by look-ahead, a dictionary
// followed by the "stream" keyword is a stream, and "n g obj" nests an
// object definition. ok is false where the library fails to parse (its
// readObject panics) and when the object is too large to vet (l.overflow).
func (l *lexer) object() (v pval, ok bool) {
	return l.objectFrom(l.next())
}

// objectFrom parses the object starting with token t.
func (l *lexer) objectFrom(t token) (v pval, ok bool) {
	l.values++
	if l.values > maxParsedValues {
		l.overflow = true
		return pval{}, false
	}
	if l.depth >= maxLexerDepth {
		return pval{}, false
	}
	l.depth++
	defer func() { l.depth-- }()
	switch t.kind {
	case tokDictOpen:
		return l.dictBody()
	case tokArrayOpen:
		var arr []pval
		for {
			e := l.next()
			switch e.kind {
			case tokArrayClose:
				return pval{kind: pArray, arr: arr}, true
			case tokEOF:
				return pval{}, false
			}
			ev, ok := l.objectFrom(e)
			if !ok {
				return pval{}, false
			}
			arr = append(arr, ev)
		}
	case tokDictClose, tokArrayClose:
		return pval{kind: pNull}, true
	case tokName:
		return pval{kind: pName, s: t.s}, true
	case tokString:
		return pval{kind: pString}, true
	case tokInt:
		return l.intOrRef(t)
	case tokKeyword:
		switch t.s {
		case "null":
			return pval{kind: pNull}, true
		case "true", "false":
			return pval{kind: pBool}, true
		}
		if _, err := strconv.ParseFloat(t.s, 64); err == nil {
			return pval{kind: pReal}, true
		}
	}
	return pval{}, false
}

// dictBody parses a dictionary whose "<<" has been read, and the stream
// that may follow it.
func (l *lexer) dictBody() (pval, bool) {
	d := make(map[string]pval)
	for {
		k := l.next()
		if k.kind == tokDictClose {
			break
		}
		if k.kind != tokName {
			return pval{}, false
		}
		v, ok := l.object()
		if !ok {
			return pval{}, false
		}
		d[k.s] = v
	}
	save := l.pos
	if t := l.next(); t.kind != tokKeyword || t.s != "stream" {
		l.pos = save
		return pval{kind: pDict, dict: d}, true
	}
	// The data starts after the end of line that ends the keyword.
	switch {
	case l.pos < len(l.data) && l.data[l.pos] == '\r':
		l.pos++
		if l.pos < len(l.data) && l.data[l.pos] == '\n' {
			l.pos++
		}
	case l.pos < len(l.data) && l.data[l.pos] == '\n':
		l.pos++
	default:
		return pval{}, false
	}
	return pval{kind: pStream, dict: d, n: int64(l.pos)}, true
}

// intOrRef parses an integer t that may start "n g R" or "n g obj".
func (l *lexer) intOrRef(t token) (pval, bool) {
	if t.n < 0 || t.n > math.MaxUint32 {
		return pval{kind: pInt, n: t.n}, true
	}
	save := l.pos
	g := l.next()
	if g.kind == tokInt && g.n >= 0 && g.n <= math.MaxUint16 {
		switch r := l.next(); {
		case r.kind == tokKeyword && r.s == "R":
			return pval{kind: pRef, n: t.n, gen: g.n}, true
		case r.kind == tokKeyword && r.s == "obj":
			inner, ok := l.object()
			if !ok {
				return pval{}, false
			}
			if inner.kind != pStream {
				if e := l.next(); e.kind != tokKeyword || e.s != "endobj" {
					return pval{}, false
				}
			}
			return pval{kind: pObjDef}, true
		}
	}
	l.pos = save
	return pval{kind: pInt, n: t.n}, true
}

// objectAt parses the definition "num gen obj VALUE" at offset off of
// data, as the library resolves an indirect object: ok is false unless
// the definition is there with that number and generation.
func objectAt(data []byte, off, num, gen int64) (v pval, ok bool, overflow bool) {
	if off < 0 || off >= int64(len(data)) {
		return pval{}, false, false
	}
	l := &lexer{data: data, pos: int(off)}
	n, g, o := l.next(), l.next(), l.next()
	if n.kind != tokInt || g.kind != tokInt || o.kind != tokKeyword || o.s != "obj" || n.n != num || g.n != gen {
		return pval{}, false, false
	}
	v, ok = l.object()
	return v, ok, l.overflow
}
