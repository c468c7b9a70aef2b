package pdf

import "strconv"

// streamKind says how the library interprets a stream checked by
// checkStream.
type streamKind int

const (
	// contentStream: a page or form content stream, interpreted with this
	// package's operator callback, which clears the operand stack at every
	// operator.
	contentStream streamKind = iota
	// cmapStream: a /ToUnicode CMap, interpreted by the library's readCmap,
	// which leaves operands on the stack.
	cmapStream
)

// Bounds on the token structure of a stream (see psScanner).
const (
	// maxOperands bounds, in a content stream, the operands (with the
	// elements of array and dictionary operands) pending before an
	// operator, and in a CMap all tokens: the library stacks them all (a
	// 123 KB deflated stream of 60 MiB of "1 " stacks 30 million values).
	maxOperands = 1 << 19
	// maxDictDepth bounds the PostScript dictionary stack ("begin"): the
	// library searches every dictionary on it for every operator.
	maxDictDepth = 32
	// maxCMapEntries bounds the bfchar and bfrange entries a CMap makes
	// the library store: it takes their count from the number before
	// beginbfchar and loops that many times at every endbfchar, whatever
	// the data, so "9999999999 beginbfchar endbfchar" exhausts memory.
	maxCMapEntries = 1 << 17
	// maxObjectNesting is the library's limit on nested objects.
	maxObjectNesting = 1000
	// maxWordBytes is how much of a keyword or number the scanner keeps.
	maxWordBytes = 64
)

// psState is the position of psScanner within a token.
type psState uint8

const (
	psSpace    psState = iota // between tokens
	psComment                 // in a % comment
	psLT                      // after '<'
	psGT                      // after '>'
	psHex                     // in <...>, expecting a digit or '>'
	psHex2                    // in <...>, expecting a pair's second digit
	psLiteral                 // in (...)
	psEscape                  // after '\' in (...)
	psEscapeCR                // after "\<CR>" in (...)
	psOctal                   // in an octal escape
	psName                    // in /name
	psNameEsc1                // after '#' in a name
	psNameEsc2                // after '#' and one byte in a name
	psWord                    // in a keyword or number
)

// psTokKind classifies the tokens of psScanner.
type psTokKind uint8

const (
	psTokValue   psTokKind = iota // string, real, boolean
	psTokName                     // /name
	psTokInt                      // integer
	psTokKeyword                  // keyword, including [ ] { } << >>
	psTokError                    // malformed token: the library's tokenizer panics
)

// psScanner follows, over decoded data fed in pieces, what the PDF
// library's Interpret (github.com/ledongthuc/pdf ps.go, lex.go) does with
// a stream, closely enough to bound it:
//
//   - The operand stack. Interpret pushes every operand (arrays and
//     dictionaries parsed whole), and dictionary values that keywords name
//     once "begin" has put dictionaries on its dictionary stack. Content
//     streams: this package's callback empties the stack at every
//     operator, so the count is of operands (and their elements) since the
//     last keyword that surely is an operator. CMaps: the library's
//     readCmap leaves operands behind, so every token counts. Over
//     maxOperands, the stream is refused.
//   - The dictionary stack: over maxDictDepth "begin"s, refused.
//   - CMap entry counts (see maxCMapEntries).
//   - Tokens: the tokenizer is mirrored byte for byte, including where it
//     panics (bad escapes, hex digits, names); Interpret recovers such
//     panics inside arrays and dictionaries and goes on from there, at top
//     level they end it. The scanner goes on in both cases, which only
//     counts more. A hex string open at the end of the data, where the
//     tokenizer never returns, sets openAtEnd.
//
// Keywords inside arrays and dictionaries make the library's readObject
// panic: the object is dropped and the keyword is not an operator.
type psScanner struct {
	kind      streamKind
	bad       bool // refused
	openAtEnd bool // a hex string is open at the end of the data

	// Tokenizer state.
	state   psState
	depth   int  // literal string nesting
	octal   int  // octal escape value
	octalN  int  // octal escape digits
	escBad  bool // name escape: first byte not a hex digit
	hex1    byte // first digit of a hex pair
	word    []byte
	wordLen int

	// Interpreter state.
	objs     []byte // open objects: 'a' array, 'k' dictionary awaiting a key, 'v' awaiting a value
	operands int    // see psScanner
	dicts    int    // "begin"s not yet ended
	prevInt  bool   // the previous top-level token was an integer
	lastInt  int64  // its value
	maxInt   int64  // largest integer outside arrays (an upper bound of any count taken from the stack)
	count    int64  // the count of the latest begin* CMap operator
	entries  int64  // CMap entries the library will store
}

// Byte classes of psClass.
const (
	psClassSpace   = 1 << iota // PDF white space
	psClassDelim               // PDF delimiter
	psClassLiteral             // '(', ')' or '\\': special in a literal string
)

// psClass classifies bytes for the fast paths of feed.
var psClass = func() (t [256]uint8) {
	for _, c := range []byte{0, '\t', '\n', '\f', '\r', ' '} {
		t[c] |= psClassSpace
	}
	for _, c := range []byte("()<>[]{}/%") {
		t[c] |= psClassDelim
	}
	for _, c := range []byte("()\\") {
		t[c] |= psClassLiteral
	}
	return t
}()

// feed scans data. Runs of bytes that do not change the state (white
// space, the body of a keyword, literal string or comment) are skipped in
// tight loops; step handles the rest.
func (s *psScanner) feed(data []byte) {
	for i := 0; i < len(data) && !s.bad; {
		switch s.state {
		case psSpace:
			for i < len(data) && psClass[data[i]]&psClassSpace != 0 {
				i++
			}
		case psWord:
			j := i
			for j < len(data) && psClass[data[j]]&(psClassSpace|psClassDelim) == 0 {
				j++
			}
			if n := min(j-i, maxWordBytes-len(s.word)); n > 0 {
				s.word = append(s.word, data[i:i+n]...)
			}
			s.wordLen += j - i
			i = j
		case psLiteral:
			for i < len(data) && psClass[data[i]]&psClassLiteral == 0 {
				i++
			}
		case psComment:
			for i < len(data) && data[i] != '\r' && data[i] != '\n' {
				i++
			}
		}
		if i < len(data) && s.step(data[i]) {
			i++
		}
	}
}

// finish ends the data.
func (s *psScanner) finish() {
	switch s.state {
	case psWord:
		s.endWord()
	case psName:
		s.token(psTokName, nil, 0)
	case psLiteral, psEscape, psEscapeCR, psOctal: // the string ends with the data
		s.token(psTokValue, nil, 0)
	case psLT, psHex, psHex2:
		s.openAtEnd = true
	case psNameEsc1, psNameEsc2, psGT:
		s.token(psTokError, nil, 0)
	}
	s.state = psSpace
}

// step advances over byte c and reports whether it was consumed (if not,
// it is scanned again in the new state, as the tokenizer unreads it).
func (s *psScanner) step(c byte) bool {
	switch s.state {
	case psSpace:
		s.stepSpace(c)
		return true
	case psComment:
		if c == '\r' || c == '\n' {
			s.state = psSpace
		}
		return true
	case psLT, psGT:
		return s.stepAngle(c)
	case psHex, psHex2:
		s.stepHex(c)
		return true
	case psLiteral, psEscape, psEscapeCR, psOctal:
		return s.stepLiteral(c)
	case psName, psNameEsc1, psNameEsc2:
		return s.stepName(c)
	default: // psWord
		if isPDFDelimOrSpace(c) {
			s.state = psSpace
			s.endWord()
			return false
		}
		if len(s.word) < maxWordBytes {
			s.word = append(s.word, c)
		}
		s.wordLen++
		return true
	}
}

// stepSpace starts the token that c opens, between tokens.
func (s *psScanner) stepSpace(c byte) {
	switch {
	case isPDFSpace(c):
	case c == '%':
		s.state = psComment
	case c == '<':
		s.state = psLT
	case c == '>':
		s.state = psGT
	case c == '(':
		s.state, s.depth = psLiteral, 1
	case c == '[' || c == ']' || c == '{' || c == '}':
		s.token(psTokKeyword, []byte{c}, 0)
	case c == '/':
		s.state = psName
	case c == ')':
		s.token(psTokError, nil, 0)
	default:
		s.state = psWord
		s.word = append(s.word[:0], c)
		s.wordLen = 1
	}
}

// stepAngle ends "<<" or ">>"; a lone "<" opens a hex string.
func (s *psScanner) stepAngle(c byte) bool {
	if s.state == psLT {
		if c == '<' {
			s.state = psSpace
			s.token(psTokKeyword, []byte("<<"), 0)
			return true
		}
		s.state = psHex
		return false
	}
	s.state = psSpace
	if c == '>' {
		s.token(psTokKeyword, []byte(">>"), 0)
		return true
	}
	s.token(psTokError, nil, 0)
	return false
}

// stepHex reads a hex string two digits at a time, skipping white space.
func (s *psScanner) stepHex(c byte) {
	if s.state == psHex {
		switch {
		case c == '>':
			s.state = psSpace
			s.token(psTokValue, nil, 0)
		case !isPDFSpace(c):
			s.hex1, s.state = c, psHex2
		}
		return
	}
	if isPDFSpace(c) {
		return
	}
	s.state = psHex
	if !isHexDigit(s.hex1) || !isHexDigit(c) {
		s.state = psSpace
		s.token(psTokError, nil, 0)
	}
}

// stepLiteral reads a literal string: nested parentheses and escapes.
func (s *psScanner) stepLiteral(c byte) bool {
	switch s.state {
	case psEscape:
		s.stepEscape(c)
		return true
	case psEscapeCR:
		s.state = psLiteral
		return c == '\n'
	case psOctal:
		if s.octalN < 3 && '0' <= c && c <= '7' {
			s.octal, s.octalN = s.octal*8+int(c-'0'), s.octalN+1
			if s.octalN == 3 {
				s.endOctal()
			}
			return true
		}
		s.endOctal()
		return false
	}
	switch c {
	case '(':
		s.depth++
	case ')':
		if s.depth--; s.depth == 0 {
			s.state = psSpace
			s.token(psTokValue, nil, 0)
		}
	case '\\':
		s.state = psEscape
	}
	return true
}

// stepEscape reads the byte after a backslash in a literal string.
func (s *psScanner) stepEscape(c byte) {
	switch {
	case c == 'n' || c == 'r' || c == 'b' || c == 't' || c == 'f' || c == '(' || c == ')' || c == '\\' || c == '\n':
		s.state = psLiteral
	case c == '\r':
		s.state = psEscapeCR
	case '0' <= c && c <= '7':
		s.state, s.octal, s.octalN = psOctal, int(c-'0'), 1
	default:
		s.state = psSpace
		s.token(psTokError, nil, 0)
	}
}

// stepName reads a name, whose "#xx" escapes need two hex digits.
func (s *psScanner) stepName(c byte) bool {
	switch s.state {
	case psNameEsc1:
		s.escBad, s.state = !isHexDigit(c), psNameEsc2
	case psNameEsc2:
		s.state = psName
		if s.escBad || !isHexDigit(c) {
			s.state = psSpace
			s.token(psTokError, nil, 0)
		}
	default:
		switch {
		case isPDFDelimOrSpace(c):
			s.state = psSpace
			s.token(psTokName, nil, 0)
			return false
		case c == '#':
			s.state = psNameEsc1
		}
	}
	return true
}

// endOctal ends an octal escape: over 255 it is an error.
func (s *psScanner) endOctal() {
	s.state = psLiteral
	if s.octal > 255 {
		s.state = psSpace
		s.token(psTokError, nil, 0)
	}
}

// endWord classifies a keyword or number as the tokenizer's readKeyword
// does.
func (s *psScanner) endWord() {
	w := s.word
	if s.wordLen > maxWordBytes {
		// Only numbers get this long in practice (leading zeros): an
		// integer of unknown value is taken as huge.
		if isInteger(string(w)) {
			s.token(psTokInt, nil, 1<<62)
		} else {
			s.token(psTokKeyword, w, 0)
		}
		return
	}
	switch {
	case string(w) == "true" || string(w) == "false":
		s.token(psTokValue, nil, 0)
	case isInteger(string(w)):
		n, err := strconv.ParseInt(string(w), 10, 64)
		if err != nil {
			s.token(psTokError, nil, 0)
			return
		}
		s.token(psTokInt, nil, n)
	case isReal(string(w)):
		if _, err := strconv.ParseFloat(string(w), 64); err != nil {
			s.token(psTokError, nil, 0)
			return
		}
		s.token(psTokValue, nil, 0)
	default:
		s.token(psTokKeyword, w, 0)
	}
}

// isInteger reports whether s is an optionally signed string of digits
// (the library's rule).
func isInteger(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isReal reports whether s is an optionally signed string of digits with
// exactly one '.' (the library's rule).
func isReal(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	dots := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '.':
			dots++
		case s[i] < '0' || s[i] > '9':
			return false
		}
	}
	return dots == 1
}

// push counts a value put on the operand stack of a content stream (in a
// CMap, token counts every token).
func (s *psScanner) push() {
	if s.kind == contentStream {
		s.countOperand()
	}
}

// countOperand counts one operand against maxOperands.
func (s *psScanner) countOperand() {
	if s.operands++; s.operands > maxOperands {
		s.bad = true
	}
}

// token interprets one token as Interpret does.
func (s *psScanner) token(kind psTokKind, word []byte, n int64) {
	if s.kind == cmapStream {
		s.countOperand() // the CMap interpreter's stack is never cleared
	}
	if len(s.objs) > 0 {
		s.prevInt = false
		s.inObject(kind, word, n)
		return
	}
	wasInt := false
	switch kind {
	case psTokError: // Interpret stops here; going on only counts more
	case psTokInt:
		s.push()
		s.noteInt(n)
		wasInt, s.lastInt = true, n
	case psTokValue, psTokName:
		s.push()
	case psTokKeyword:
		switch string(word) {
		case "null", "]", ">>", "dict", "currentdict":
			s.push()
		case "[":
			s.open('a')
		case "<<":
			s.open('k')
		case "begin":
			if s.dicts++; s.dicts > maxDictDepth {
				s.bad = true
			}
		case "end":
			if s.dicts > 0 {
				s.dicts--
			}
		case "def", "pop":
		default:
			s.operator(word)
		}
	}
	s.prevInt = wasInt
}

// operator handles a top-level keyword that Interpret passes to its
// callback, unless a dictionary on the dictionary stack defines it (then
// its value is pushed).
func (s *psScanner) operator(word []byte) {
	if s.kind == contentStream {
		if s.dicts > 0 {
			s.push() // may be a defined name: assume the worst
		} else {
			s.operands = 0
		}
		return
	}
	switch string(word) {
	case "begincodespacerange", "beginbfchar", "beginbfrange":
		// readCmap pops the count from the stack: the integer just
		// before, or at worst any integer the stack may hold.
		s.count = s.maxInt
		if s.prevInt {
			s.count = s.lastInt
		}
	case "endbfchar", "endbfrange":
		if s.count > 0 {
			if s.entries += s.count; s.entries > maxCMapEntries || s.count > maxCMapEntries {
				s.bad = true
			}
		}
	}
}

// noteInt records an integer that may end up on the operand stack.
func (s *psScanner) noteInt(n int64) {
	s.maxInt = max(s.maxInt, n)
}

// open starts an array ('a') or dictionary ('k').
func (s *psScanner) open(kind byte) {
	if len(s.objs) >= maxObjectNesting {
		// readObject panics before reading the token, which Interpret
		// then reads again at top level.
		s.objs = s.objs[:0]
	}
	s.push()
	s.objs = append(s.objs, kind)
}

// inObject handles a token inside an array or dictionary, as the library's
// readArray, readDict and readObject do: "]" ends an array, ">>" a
// dictionary; either one stands for null where a value is due; any other
// keyword, a non-name key or a malformed token makes readObject panic,
// which drops the object (Interpret goes on with the next token).
func (s *psScanner) inObject(kind psTokKind, word []byte, n int64) {
	top := &s.objs[len(s.objs)-1]
	drop := func() { s.objs = s.objs[:0] }
	switch kind {
	case psTokError:
		drop()
	case psTokKeyword:
		switch string(word) {
		case "[", "<<":
			switch *top {
			case 'k':
				drop()
				return
			case 'v':
				*top = 'k'
			}
			if string(word) == "[" {
				s.open('a')
			} else {
				s.open('k')
			}
		case "]":
			switch *top {
			case 'a':
				s.objs = s.objs[:len(s.objs)-1]
			case 'v':
				*top = 'k'
				s.push()
			default:
				drop()
			}
		case ">>":
			switch *top {
			case 'k':
				s.objs = s.objs[:len(s.objs)-1]
			case 'v':
				*top = 'k'
				s.push()
			default:
				s.push()
			}
		case "null":
			switch *top {
			case 'k':
				drop()
			case 'v':
				*top = 'k'
				s.push()
			default:
				s.push()
			}
		default:
			drop()
		}
	case psTokName:
		switch *top {
		case 'k':
			*top = 'v'
		case 'v':
			*top = 'k'
		}
		s.push()
	default: // psTokInt, psTokValue
		switch *top {
		case 'k':
			drop()
			return
		case 'v':
			*top = 'k'
			if kind == psTokInt {
				s.noteInt(n)
			}
		}
		s.push()
	}
}
