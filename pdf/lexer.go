package pdf

import "strconv"

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
	data  []byte
	pos   int
	depth int // nesting of the dictionary or array being read
}

// maxLexerDepth bounds the nesting of dictionaries and arrays read.
const maxLexerDepth = 64

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

// dictEntries reads a dictionary whose "<<" has been read and returns, for
// each top-level key in want, its value if that is a direct integer, or
// the integers of its value if that is an array of integers. Nested values
// are skipped. ok is false if the dictionary is cut short.
func (l *lexer) dictEntries(want ...string) (ints map[string]int64, arrays map[string][]int64, ok bool) {
	ints, arrays = make(map[string]int64), make(map[string][]int64)
	if l.depth >= maxLexerDepth {
		return ints, arrays, false
	}
	l.depth++
	defer func() { l.depth-- }()
	for {
		key := l.next()
		switch key.kind {
		case tokDictClose:
			return ints, arrays, true
		case tokName:
		default:
			return ints, arrays, false
		}
		wanted := false
		for _, w := range want {
			wanted = wanted || w == key.s
		}
		v := l.next()
		switch {
		case v.kind == tokInt:
			save := l.pos
			if g := l.next(); g.kind == tokInt {
				if r := l.next(); r.kind == tokKeyword && r.s == "R" {
					continue // an indirect reference, not an integer
				}
			}
			l.pos = save
			if wanted {
				ints[key.s] = v.n
			}
		case v.kind == tokArrayOpen:
			nums, ok := l.arrayInts()
			if !ok {
				return ints, arrays, false
			}
			if wanted {
				arrays[key.s] = nums
			}
		case v.kind == tokDictOpen:
			if _, _, ok := l.dictEntries(); !ok {
				return ints, arrays, false
			}
		case v.kind == tokEOF || v.kind == tokDictClose || v.kind == tokArrayClose:
			return ints, arrays, false
		}
	}
}

// arrayInts reads an array whose "[" has been read and returns its direct
// integers; nested arrays and dictionaries are skipped.
func (l *lexer) arrayInts() ([]int64, bool) {
	if l.depth >= maxLexerDepth {
		return nil, false
	}
	l.depth++
	defer func() { l.depth-- }()
	var nums []int64
	for {
		t := l.next()
		switch t.kind {
		case tokArrayClose:
			return nums, true
		case tokInt:
			nums = append(nums, t.n)
		case tokArrayOpen:
			if _, ok := l.arrayInts(); !ok {
				return nil, false
			}
		case tokDictOpen:
			if _, _, ok := l.dictEntries(); !ok {
				return nil, false
			}
		case tokEOF, tokDictClose:
			return nil, false
		}
	}
}
