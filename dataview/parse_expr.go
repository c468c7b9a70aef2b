package dataview

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// enter and leave track nesting depth (see maxDepth).
func (p *parser) enter() {
	if p.depth++; p.depth > maxDepth {
		p.fail(p.i, "the query nests too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// expr parses an expression. Dataview gives "and" and "or" the same
// precedence, evaluated left to right: a or b and c is (a or b) and c.
func (p *parser) expr() expr {
	p.enter()
	defer p.leave()
	left := p.compare()
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
		op := "|"
		if and {
			op = "&"
		}
		left = &binExpr{pos: pos, op: op, left: left, right: p.compare()}
	}
}

func (p *parser) compare() expr {
	left := p.additive()
	for {
		save := p.i
		p.ws()
		pos := p.i
		op := ""
		for _, o := range []string{">=", "<=", "!=", ">", "<", "="} {
			if strings.HasPrefix(p.rest(), o) {
				op = o
				break
			}
		}
		if op == "" {
			p.i = save
			return left
		}
		p.i += len(op)
		if op == "=" && p.peek() == '=' {
			p.fail(pos, "use = (not ==) to compare")
		}
		p.ws()
		left = &binExpr{pos: pos, op: op, left: left, right: p.additive()}
	}
}

func (p *parser) additive() expr {
	left := p.multiplicative()
	for {
		save := p.i
		p.ws()
		pos := p.i
		c := p.peek()
		if c != '+' && c != '-' {
			p.i = save
			return left
		}
		p.i++
		p.ws()
		left = &binExpr{pos: pos, op: string(c), left: left, right: p.multiplicative()}
	}
}

func (p *parser) multiplicative() expr {
	left := p.postfix()
	for {
		save := p.i
		p.ws()
		pos := p.i
		c := p.peek()
		if c != '*' && c != '/' && c != '%' {
			p.i = save
			return left
		}
		p.i++
		p.ws()
		left = &binExpr{pos: pos, op: string(c), left: left, right: p.postfix()}
	}
}

// postfix reads an atom and its .field, [index] and (call) suffixes.
func (p *parser) postfix() expr {
	p.enter()
	defer p.leave()
	e := p.atom()
	for {
		pos := p.i
		switch p.peek() {
		case '.':
			p.i++
			name := p.identifier()
			if name == "" {
				p.fail(p.i, "expected a field name after '.'")
			}
			name = norm.NFC.String(name)
			p.checkFileField(e, name, pos+1)
			e = &indexExpr{pos: pos, obj: e, index: &literalExpr{pos: pos + 1, val: name}}
		case '[':
			p.i++
			p.ws()
			idx := p.expr()
			p.ws()
			p.expect(']', "to close the index")
			if lit, ok := idx.(*literalExpr); ok {
				if name, ok := lit.val.(string); ok {
					p.checkFileField(e, name, lit.pos)
				}
			}
			e = &indexExpr{pos: pos, obj: e, index: idx}
		case '(':
			v, ok := e.(*varExpr)
			if !ok {
				p.fail(pos, "only named functions can be called")
			}
			e = p.call(v)
		default:
			return e
		}
	}
}

// unsupportedFile are file.* fields Dataview has and this index cannot
// answer.
var unsupportedFile = map[string]string{
	"ctime":       "file.ctime is not available: the index records only modification times (use file.mtime)",
	"cday":        "file.cday is not available: the index records only modification times (use file.mday)",
	"tasks":       "file.tasks is not supported (no task index)",
	"lists":       "file.lists is not supported (no list index)",
	"tables":      "file.tables is not supported",
	"starred":     "file.starred is not supported (bookmarks are not read)",
	"frontmatter": "file.frontmatter is not supported; name the field directly",
}

func (p *parser) checkFileField(obj expr, name string, pos int) {
	if v, ok := obj.(*varExpr); ok && v.name == "file" {
		if msg, bad := unsupportedFile[name]; bad {
			p.unsupported(pos, "%s", msg)
		}
	}
}

func (p *parser) call(fn *varExpr) expr {
	name := strings.ToLower(fn.name)
	spec, ok := functions[name]
	if !ok {
		p.unsupported(fn.pos, "function %s() is not supported (supported: %s)", fn.name, functionNames())
	}
	p.i++ // (
	var args []expr
	p.ws()
	if p.peek() != ')' {
		for {
			p.ws()
			args = append(args, p.expr())
			p.ws()
			if p.peek() != ',' {
				break
			}
			p.i++
		}
	}
	p.ws()
	p.expect(')', "to close the call of "+fn.name+"()")
	if name == "date" && len(args) == 2 {
		p.unsupported(fn.pos, "date(text, format) is not supported; date(text) reads ISO dates like 2024-01-31")
	}
	if len(args) < spec.minArgs || len(args) > spec.maxArgs {
		p.fail(fn.pos, "%s() takes %s", fn.name, spec.arity())
	}
	return &callExpr{pos: fn.pos, name: name, args: args}
}

func (p *parser) atom() expr {
	pos := p.i
	rest := p.rest()
	c := p.peek()
	switch {
	case c == '!' && strings.HasPrefix(rest, "![["):
		p.i++
		l := p.linkLit()
		p.needTarget(l, pos)
		l.Embed = true
		return &linkExpr{pos: pos, link: l}
	case c == '!':
		p.i++
		p.ws()
		return &negExpr{pos: pos, child: p.postfix()}
	case strings.HasPrefix(rest, "[["):
		if l, ok := p.tryLinkLit(); ok {
			p.needTarget(l, pos)
			return &linkExpr{pos: pos, link: l}
		}
		return p.listLit()
	case c == '[':
		return p.listLit()
	case c == '{':
		p.unsupported(pos, "object literals ({ … }) are not supported")
	case c == '(':
		if p.looksLikeLambda() {
			p.unsupported(pos, "lambdas ((x) => …) are not supported")
		}
		p.i++
		p.ws()
		e := p.expr()
		p.ws()
		p.expect(')', "to close the parenthesis")
		return e
	case c == '"':
		return &literalExpr{pos: pos, val: p.stringLit()}
	case c == '\'':
		p.fail(pos, "text must be in double quotes (\"…\")")
	case isDigitByte(c) || (c == '-' && len(rest) > 1 && isDigitByte(rest[1])):
		v, n := scanNumber(rest)
		p.i += n
		return &literalExpr{pos: pos, val: v}
	}
	if e := p.wordLiteral(pos); e != nil {
		return e
	}
	name := p.identifier()
	if name == "" {
		p.fail(pos, "expected a value, field or function but found %s", p.describe())
	}
	return p.variable(name, pos)
}

func (p *parser) variable(name string, pos int) expr {
	for _, r := range reservedWords {
		if strings.EqualFold(name, r) {
			p.fail(pos, "%s is a keyword, not a field; write row[%q] for a field named so", name, strings.ToLower(name))
		}
	}
	if name == "this" {
		p.unsupported(pos, "this (the note holding the query) is not available: the query does not run inside a note")
	}
	return &varExpr{pos: pos, name: norm.NFC.String(name)}
}

// wordLiteral reads true/false/null and date(…)/dur(…) literals.
func (p *parser) wordLiteral(pos int) expr {
	rest := p.rest()
	for _, w := range []struct {
		text string
		val  Value
	}{{"true", true}, {"false", false}, {"True", true}, {"False", false}, {"null", nil}} {
		if strings.HasPrefix(rest, w.text) && !p.identAt(p.i+len(w.text)) {
			p.i += len(w.text)
			return &literalExpr{pos: pos, val: w.val}
		}
	}
	if hasPrefixFold(rest, "date(") {
		if e := p.tryDateLit(pos); e != nil {
			return e
		}
	}
	if hasPrefixFold(rest, "dur(") {
		if e := p.tryDurLit(pos); e != nil {
			return e
		}
	}
	return nil
}

// tryDateLit reads date(2024-01-31), date(today), …; on failure it
// restores the position so date(…) is read as a function call.
func (p *parser) tryDateLit(pos int) expr {
	save := p.i
	p.i += len("date(")
	p.ws()
	var e expr
	rest := p.rest()
	for _, w := range dateWords {
		if strings.HasPrefix(rest, w) {
			p.i += len(w)
			e = &dateWordExpr{pos: pos, word: w}
			break
		}
	}
	if e == nil {
		d, n, ok := scanDate(rest)
		if !ok {
			p.i = save
			return nil
		}
		p.i += n
		e = &dateExpr{pos: pos, d: d}
	}
	p.ws()
	if p.peek() != ')' {
		p.i = save
		return nil
	}
	p.i++
	return e
}

func (p *parser) tryDurLit(pos int) expr {
	save := p.i
	p.i += len("dur(")
	p.ws()
	d, n := scanDuration(p.rest())
	if n == 0 {
		p.i = save
		return nil
	}
	p.i += n
	p.ws()
	if p.peek() != ')' {
		p.i = save
		return nil
	}
	p.i++
	return &literalExpr{pos: pos, val: d}
}

func (p *parser) listLit() expr {
	pos := p.i
	p.i++ // [
	var elems []expr
	p.ws()
	if p.peek() != ']' {
		for {
			p.ws()
			elems = append(elems, p.expr())
			p.ws()
			if p.peek() != ',' {
				break
			}
			p.i++
		}
	}
	p.ws()
	p.expect(']', "to close the list")
	return &listExpr{pos: pos, elems: elems}
}

// looksLikeLambda reports "(a, b) =>" at the position.
func (p *parser) looksLikeLambda() bool {
	save := p.i
	defer func() { p.i = save }()
	p.i++
	for {
		p.ws()
		if p.identifier() == "" {
			break
		}
		p.ws()
		if p.peek() != ',' {
			break
		}
		p.i++
	}
	p.ws()
	if p.peek() != ')' {
		return false
	}
	p.i++
	p.ws()
	return strings.HasPrefix(p.rest(), "=>")
}

// stringLit reads "…" with \" and \\ escapes (other escapes stay as
// written, as in Dataview).
func (p *parser) stringLit() string {
	start := p.i
	p.i++
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.i]
		switch c {
		case '"':
			p.i++
			return b.String()
		case '\\':
			if p.i+1 >= len(p.src) {
				p.fail(start, "unterminated text: missing closing \"")
			}
			next := p.src[p.i+1]
			if next != '"' && next != '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(next)
			p.i += 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.fail(start, "unterminated text: missing closing \"")
	return ""
}

// linkLit reads [[…]] or fails.
func (p *parser) linkLit() Link {
	l, ok := p.tryLinkLit()
	if !ok {
		p.fail(p.i, "unterminated link: expected ]] (a link cannot contain [ or ])")
	}
	return l
}

func (p *parser) tryLinkLit() (Link, bool) {
	rest := p.rest()
	if !strings.HasPrefix(rest, "[[") {
		return Link{}, false
	}
	end := strings.IndexAny(rest[2:], "[]")
	if end < 0 || !strings.HasPrefix(rest[2+end:], "]]") {
		return Link{}, false
	}
	p.i += 2 + end + 2
	return parseInnerLink(norm.NFC.String(rest[2 : 2+end])), true
}

// needTarget refuses [[]] and [[#heading]]: they name the note holding
// the query, and a query run here is in no note.
func (p *parser) needTarget(l Link, pos int) {
	if strings.TrimSpace(l.Path) == "" {
		p.unsupported(pos, "[[]] and [[#…]] mean the note holding the query; this query runs in no note, so name the note")
	}
}

// identifier reads a Dataview field name: a letter (or emoji) followed by
// letters, digits, '_' and '-'. It returns "" (and does not move) when
// there is none.
func (p *parser) identifier() string {
	start := p.i
	r, size := utf8.DecodeRuneInString(p.rest())
	if !(unicode.IsLetter(r) || isEmoji(r)) {
		return ""
	}
	p.i += size
	for !p.eof() && p.identAt(p.i) {
		_, size := utf8.DecodeRuneInString(p.rest())
		p.i += size
	}
	return p.src[start:p.i]
}

// identAt reports whether an identifier character is at byte i.
func (p *parser) identAt(i int) bool {
	if i >= len(p.src) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(p.src[i:])
	return unicode.IsLetter(r) || isASCIIDigit(r) || r == '_' || r == '-' || isEmoji(r) || r == 0x200d || r == 0xfe0f
}

func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }
func isDigitByte(c byte) bool  { return c >= '0' && c <= '9' }

// isEmoji approximates the emoji Dataview accepts in names and tags.
func isEmoji(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2600 && r <= 0x27bf || unicode.Is(unicode.So, r) && r > 0x2000
}
