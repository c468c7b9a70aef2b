package dataview

import (
	"strings"
	"unicode"
)

// maxDepth bounds expression nesting so a hostile query cannot exhaust the
// stack.
const maxDepth = 100

// clauseKeywords start data commands; a LIST or TABLE header stops before
// them.
var clauseKeywords = []string{"FROM", "WHERE", "SORT", "LIMIT", "GROUP", "FLATTEN"}

// reservedWords cannot be field names (Dataview's keywords); use
// row["where"] for such a field.
var reservedWords = []string{"FROM", "WHERE", "LIMIT", "GROUP", "FLATTEN"}

type parser struct {
	src   string // the query, comments and code fences blanked out
	orig  string // the query as given, for error positions
	i     int
	depth int
}

// Parse reads a Dataview query (DQL): LIST or TABLE, FROM, WHERE, SORT and
// LIMIT. Anything else Dataview has (TASK, CALENDAR, GROUP BY, FLATTEN,
// lambdas, most functions, inline "= …" queries, JavaScript) is an *Error
// naming the unsupported part and where it is, never a silent partial
// reading.
func Parse(query string) (q *Query, err error) {
	p := &parser{orig: query}
	src, err := p.prepare(query)
	if err != nil {
		return nil, err
	}
	p.src = src
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			q, err = nil, pe
		}
	}()
	return p.query(), nil
}

// fail aborts parsing with a syntax error at pos.
func (p *parser) fail(pos int, format string, args ...any) {
	panic(newError(p.orig, pos, false, format, args...))
}

// unsupported aborts parsing: valid Dataview this package does not run.
func (p *parser) unsupported(pos int, format string, args ...any) {
	panic(newError(p.orig, pos, true, format, args...))
}

// prepare blanks out a ```dataview fence and // comment lines (keeping
// byte offsets) and refuses inline queries and JavaScript.
func (p *parser) prepare(query string) (string, error) {
	lines := strings.SplitAfter(query, "\n")
	off := 0
	firstLine := true
	for i, line := range lines {
		t := strings.TrimSpace(line)
		lead := off + len(line) - len(strings.TrimLeft(line, " \t\r\n"))
		switch {
		case t == "":
		case firstLine && strings.HasPrefix(t, "```"):
			lang := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`~")))
			if lang == "dataviewjs" {
				return "", newError(query, lead, true, "JavaScript queries (dataviewjs) are not supported; write a LIST or TABLE query")
			}
			if lang != "dataview" && lang != "" {
				return "", newError(query, lead, false, "a ``` fence must be ```dataview, not ```%s", lang)
			}
			lines[i] = blank(line)
		case strings.HasPrefix(t, "```") && strings.Trim(t, "`") == "":
			lines[i] = blank(line)
		case strings.HasPrefix(t, "//"):
			lines[i] = blank(line)
		}
		if t != "" {
			firstLine = false
		}
		off += len(line)
	}
	src := strings.Join(lines, "")
	start := strings.TrimLeftFunc(src, unicode.IsSpace)
	pos := len(src) - len(start)
	switch {
	case start == "":
		return "", newError(query, 0, false, "the query is empty; start with LIST or TABLE")
	case strings.HasPrefix(start, "$="), strings.HasPrefix(start, "dv."):
		return "", newError(query, pos, true, "JavaScript (dataviewjs, $= …, dv.*) is not supported; write a LIST or TABLE query")
	case strings.HasPrefix(start, "="):
		return "", newError(query, pos, true, "inline DQL (= …) is not supported; write a LIST or TABLE query")
	}
	return src, nil
}

// blank replaces a line by spaces (keeping its newline and length).
func blank(line string) string {
	b := []byte(line)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

func (p *parser) query() *Query {
	q := &Query{Text: p.orig}
	p.ws()
	p.header(q)
	sawClause := false
	for {
		p.ws()
		if p.eof() {
			break
		}
		pos := p.i
		word := strings.ToUpper(p.peekWord())
		switch word {
		case "FROM":
			if sawClause || q.source != nil {
				p.fail(pos, "FROM must come once, right after %s", strings.ToUpper(q.Type))
			}
			p.i += len(word)
			p.requireSpace("FROM")
			q.source = p.source()
		case "WHERE":
			p.i += len(word)
			p.requireSpace("WHERE")
			p.ws()
			q.steps = append(q.steps, step{kind: "where", pos: pos, expr: p.expr()})
		case "SORT":
			p.i += len(word)
			p.requireSpace("SORT")
			q.steps = append(q.steps, step{kind: "sort", pos: pos, sorts: p.sortKeys()})
		case "LIMIT":
			p.i += len(word)
			p.requireSpace("LIMIT")
			p.ws()
			q.steps = append(q.steps, step{kind: "limit", pos: pos, expr: p.expr()})
		case "GROUP":
			p.unsupported(pos, "GROUP BY is not supported")
		case "FLATTEN":
			p.unsupported(pos, "FLATTEN is not supported")
		case "ORDER":
			p.fail(pos, "unexpected ORDER BY; use SORT field [ASC|DESC]")
		default:
			p.fail(pos, "unexpected %s; expected FROM, WHERE, SORT or LIMIT", p.describe())
		}
		sawClause = true
	}
	return q
}

// header reads LIST [WITHOUT ID] [expr] or TABLE [WITHOUT ID] cols.
func (p *parser) header(q *Query) {
	pos := p.i
	word := strings.ToUpper(p.peekWord())
	switch word {
	case "LIST", "TABLE":
		q.Type = strings.ToLower(word)
	case "TASK", "CALENDAR":
		p.unsupported(pos, "%s queries are not supported; use LIST or TABLE", word)
	case "SELECT":
		p.fail(pos, "DQL is not SQL: start with LIST or TABLE, not SELECT")
	default:
		p.fail(pos, "a query starts with LIST or TABLE, not %s", p.describe())
	}
	p.i += len(word)
	if p.eof() {
		return
	}
	p.requireSpace(word)
	p.ws()
	if save := p.i; p.keyword("WITHOUT") {
		p.ws()
		if p.keyword("ID") {
			q.WithoutID = true
			p.ws()
		} else {
			p.i = save // a field named "without"
		}
	}
	if p.eof() || p.atClause() {
		return
	}
	if q.Type == TypeList {
		start := p.i
		e := p.expr()
		q.Columns = []Column{{Name: columnText(p.src[start:p.i]), pos: start, expr: e}}
		return
	}
	q.Columns = p.columns()
}

// columns reads TABLE's comma-separated expressions, each optionally
// named with AS.
func (p *parser) columns() []Column {
	var cols []Column
	seen := map[string]bool{}
	for {
		p.ws()
		start := p.i
		e := p.expr()
		col := Column{Name: columnText(p.src[start:p.i]), pos: start, expr: e}
		save := p.i
		p.ws()
		if p.keyword("AS") {
			p.ws()
			col.Name = p.columnName()
		} else {
			p.i = save
		}
		key := col.Name
		if seen[key] {
			p.fail(start, "column %q appears twice; name one with AS", col.Name)
		}
		seen[key] = true
		cols = append(cols, col)
		save = p.i
		p.ws()
		if p.peek() != ',' {
			p.i = save
			return cols
		}
		p.i++
	}
}

// columnName reads the name after AS: an identifier or a "string".
func (p *parser) columnName() string {
	if p.peek() == '"' {
		return p.stringLit()
	}
	if name := p.identifier(); name != "" {
		return name
	}
	p.fail(p.i, "expected a column name after AS (a word or a \"quoted name\")")
	return ""
}

// columnText is a column's header: the expression text without line
// breaks, as Dataview shows it.
func columnText(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "")
}

func (p *parser) sortKeys() []sortKey {
	var keys []sortKey
	for {
		p.ws()
		k := sortKey{expr: p.expr()}
		save := p.i
		p.ws()
		switch strings.ToUpper(p.peekWord()) {
		case "ASC", "ASCENDING":
			p.i += len(p.peekWord())
		case "DESC", "DESCENDING":
			p.i += len(p.peekWord())
			k.desc = true
		default:
			p.i = save
		}
		keys = append(keys, k)
		save = p.i
		p.ws()
		if p.peek() != ',' {
			p.i = save
			return keys
		}
		p.i++
	}
}

// atClause reports whether the next word starts a data command.
func (p *parser) atClause() bool {
	w := strings.ToUpper(p.peekWord())
	for _, k := range clauseKeywords {
		if w == k {
			return true
		}
	}
	return false
}
