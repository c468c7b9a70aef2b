package dataview

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// dump renders a parsed query in a fixed, fully parenthesised form.
func dump(q *Query) string {
	var b strings.Builder
	b.WriteString(strings.ToUpper(q.Type))
	if q.WithoutID {
		b.WriteString(" WITHOUT ID")
	}
	for i, c := range q.Columns {
		sep := " "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%s AS %q", sep, dumpExpr(c.expr), c.Name)
	}
	if q.source != nil {
		b.WriteString(" FROM " + dumpSource(q.source))
	}
	for _, st := range q.steps {
		switch st.kind {
		case "where":
			b.WriteString(" WHERE " + dumpExpr(st.expr))
		case "limit":
			b.WriteString(" LIMIT " + dumpExpr(st.expr))
		case "sort":
			b.WriteString(" SORT")
			for i, k := range st.sorts {
				if i > 0 {
					b.WriteString(",")
				}
				dir := "ASC"
				if k.desc {
					dir = "DESC"
				}
				b.WriteString(" " + dumpExpr(k.expr) + " " + dir)
			}
		}
	}
	return b.String()
}

func dumpSource(s source) string {
	switch x := s.(type) {
	case *folderSource:
		return fmt.Sprintf("folder(%q)", x.path)
	case *tagSource:
		return "tag(" + x.tag + ")"
	case *linkSource:
		if x.outgoing {
			return "outgoing(" + x.target + ")"
		}
		return "incoming(" + x.target + ")"
	case *negSource:
		return "not(" + dumpSource(x.child) + ")"
	case *binSource:
		op := "or"
		if x.and {
			op = "and"
		}
		return "(" + dumpSource(x.left) + " " + op + " " + dumpSource(x.right) + ")"
	}
	return "?"
}

func dumpExpr(e expr) string {
	switch x := e.(type) {
	case *literalExpr:
		switch v := x.val.(type) {
		case string:
			return fmt.Sprintf("%q", v)
		case Duration:
			return "dur(" + v.human() + ")"
		case nil:
			return "null"
		}
		return fmt.Sprint(x.val)
	case *dateWordExpr:
		return "date(" + x.word + ")"
	case *dateExpr:
		d := x.d
		zone := ""
		if d.zone != nil {
			zone = " " + d.zone.String()
		}
		return fmt.Sprintf("date(%04d-%02d-%02d %02d:%02d:%02d.%03d%s)", d.year, d.month, d.day, d.hour, d.min, d.sec, d.ms, zone)
	case *linkExpr:
		return x.link.markdown()
	case *listExpr:
		parts := make([]string, len(x.elems))
		for i, el := range x.elems {
			parts[i] = dumpExpr(el)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *varExpr:
		return x.name
	case *indexExpr:
		return dumpExpr(x.obj) + "[" + dumpExpr(x.index) + "]"
	case *callExpr:
		parts := make([]string, len(x.args))
		for i, a := range x.args {
			parts[i] = dumpExpr(a)
		}
		return x.name + "(" + strings.Join(parts, ", ") + ")"
	case *negExpr:
		return "!" + dumpExpr(x.child)
	case *binExpr:
		return "(" + dumpExpr(x.left) + " " + x.op + " " + dumpExpr(x.right) + ")"
	}
	return "?"
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		query, want string
	}{
		{"LIST", "LIST"},
		{"list", "LIST"},
		{"  LIST  \n", "LIST"},
		{`LIST FROM "Projects"`, `LIST FROM folder("Projects")`},
		{`LIST file.mtime FROM #project`, `LIST file["mtime"] AS "file.mtime" FROM tag(project)`},
		{"LIST WITHOUT ID file.name", `LIST WITHOUT ID file["name"] AS "file.name"`},
		{"TABLE WITHOUT ID file.name AS Name, rating", `TABLE WITHOUT ID file["name"] AS "Name", rating AS "rating"`},
		{`TABLE status AS "The status", rating AS r`, `TABLE status AS "The status", rating AS "r"`},
		{"TABLE", "TABLE"},
		{"TABLE without, with", `TABLE without AS "without", with AS "with"`},
		{"TABLE FROM #a", "TABLE FROM tag(a)"},
		{`TABLE (rating + 1) * 2 AS x`, `TABLE ((rating + 1) * 2) AS "x"`},
		{"TABLE rating\n  + 1", `TABLE (rating + 1) AS "rating+ 1"`},
		// sources: and/or share one precedence, left to right; - and ! negate
		{`LIST FROM #a or #b and "c"`, `LIST FROM ((tag(a) or tag(b)) and folder("c"))`},
		{`LIST FROM #a and (-"x" or !#y/z)`, `LIST FROM (tag(a) and (not(folder("x")) or not(tag(y/z))))`},
		{`LIST FROM [[Note]] & outgoing([[Other|shown]])`, `LIST FROM (incoming(Note) and outgoing(Other))`},
		{`LIST FROM #a | #b`, `LIST FROM (tag(a) or tag(b))`},
		{`LIST FROM "Folder/"`, `LIST FROM folder("Folder/")`},
		// expressions
		{`LIST WHERE status = "done" AND rating >= 4`, `LIST WHERE ((status = "done") & (rating >= 4))`},
		{`LIST WHERE a or b and c`, `LIST WHERE ((a | b) & c)`},
		{`LIST WHERE a or (b and c)`, `LIST WHERE (a | (b & c))`},
		{`LIST WHERE !done`, `LIST WHERE !done`},
		{`LIST WHERE !(a = 1)`, `LIST WHERE !(a = 1)`},
		{`LIST WHERE a != null`, `LIST WHERE (a != null)`},
		{`LIST WHERE 1 + 2 * 3 - 4 / 2 % 3 < 5`, `LIST WHERE (((1 + (2 * 3)) - ((4 / 2) % 3)) < 5)`},
		{`LIST WHERE x - -1.5`, `LIST WHERE (x - -1.5)`},
		{`LIST WHERE last-reviewed`, `LIST WHERE last-reviewed`},
		{`LIST WHERE a.b.c = true`, `LIST WHERE (a["b"]["c"] = true)`},
		{`LIST WHERE row["where"] = False`, `LIST WHERE (row["where"] = false)`},
		{`LIST WHERE tags[0] = "x"`, `LIST WHERE (tags[0] = "x")`},
		{`LIST WHERE contains(file.tags, "#a") OR icontains(file.name, "x")`, `LIST WHERE (contains(file["tags"], "#a") | icontains(file["name"], "x"))`},
		{`LIST WHERE Contains(tags, "a")`, `LIST WHERE contains(tags, "a")`},
		{`LIST WHERE length(file.inlinks) = 0`, `LIST WHERE (length(file["inlinks"]) = 0)`},
		{`LIST WHERE file.mtime > date(today) - dur(7 days)`, `LIST WHERE (file["mtime"] > (date(today) - dur(1 week)))`},
		{`LIST WHERE date >= date(2024-01-31)`, `LIST WHERE (date >= date(2024-01-31 00:00:00.000))`},
		{`LIST WHERE d < date( 2024-01-31T10:20:30.123Z )`, `LIST WHERE (d < date(2024-01-31 10:20:30.123 UTC))`},
		{`LIST WHERE d < date(2024-01)`, `LIST WHERE (d < date(2024-01-01 00:00:00.000))`},
		{`LIST WHERE d = date(start-of-week) OR d = date(eom)`, `LIST WHERE ((d = date(start-of-week)) | (d = date(eom)))`},
		{`LIST WHERE date(due) < date("2024-01-01")`, `LIST WHERE (date(due) < date("2024-01-01"))`},
		{`LIST WHERE x = dur(1h 30m) OR x = dur(1 s, 2 m, 3 h)`, `LIST WHERE ((x = dur(1 hour, 30 minutes)) | (x = dur(3 hours, 2 minutes, 1 second)))`},
		{`LIST WHERE x = dur("2 days")`, `LIST WHERE (x = dur("2 days"))`},
		{`LIST WHERE link = [[Note#Head|Shown]]`, `LIST WHERE (link = [[Note#Head|Shown]])`},
		{`LIST WHERE contains(file.outlinks, [[Note#^block]])`, `LIST WHERE contains(file["outlinks"], [[Note#^block]])`},
		{`LIST WHERE x = ![[pic.png]]`, `LIST WHERE (x = ![[pic.png]])`},
		{`LIST WHERE contains(["a", 1, [2]], x)`, `LIST WHERE contains(["a", 1, [2]], x)`},
		{`LIST WHERE s = "say \"hi\" \\ \n"`, `LIST WHERE (s = "say \"hi\" \\ \\n")`},
		{`LIST WHERE nullable = trueish`, `LIST WHERE (nullable = trueish)`},
		{`LIST WHERE 状态 = "完成"`, `LIST WHERE (状态 = "完成")`},
		// commands in any order and number
		{"LIST\nWHERE a\nSORT b DESC, c\nLIMIT 5\nWHERE d\nSORT e ascending", `LIST WHERE a SORT b DESC, c ASC LIMIT 5 WHERE d SORT e ASC`},
		{"table file.name from \"x\" where a sort file.name desc limit 3", `TABLE file["name"] AS "file.name" FROM folder("x") WHERE a SORT file["name"] DESC LIMIT 3`},
		// fences and comments
		{"```dataview\nLIST\n// a comment\nFROM #a\n```", "LIST FROM tag(a)"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := Parse(tt.query)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := dump(q); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		query       string
		msg         string // substring of the message
		line, col   int
		unsupported bool
	}{
		{"", "the query is empty", 1, 1, false},
		{"   \n  ", "the query is empty", 1, 1, false},
		{"SELECT * FROM x", "not SQL", 1, 1, false},
		{"LIS", `starts with LIST or TABLE, not "LIS"`, 1, 1, false},
		{"LISTING", `not "LISTING"`, 1, 1, false},
		{"TASK FROM #a", "TASK queries are not supported", 1, 1, true},
		{"CALENDAR file.mtime", "CALENDAR queries are not supported", 1, 1, true},
		{"= this.file.name", "inline DQL", 1, 1, true},
		{"  $= dv.pages()", "JavaScript", 1, 3, true},
		{"dv.pages('#a')", "JavaScript", 1, 1, true},
		{"```dataviewjs\ndv.list()\n```", "dataviewjs", 1, 1, true},
		{"LIST\nGROUP BY status", "GROUP BY is not supported", 2, 1, true},
		{"TABLE x\nFLATTEN tags", "FLATTEN is not supported", 2, 1, true},
		{"LIST WHERE regexmatch(\"a\", x)", "function regexmatch() is not supported (supported: choice, contains, date,", 1, 12, true},
		{"LIST WHERE filter(tags, (t) => t = \"a\")", "function filter() is not supported", 1, 12, true},
		{"LIST WHERE any((t) => t)", "function any() is not supported", 1, 12, true},
		{"LIST WHERE x = (t) => t", "lambdas", 1, 16, true},
		{"LIST WHERE x = { a: 1 }", "object literals", 1, 16, true},
		{"LIST WHERE file.ctime > date(today)", "file.ctime is not available", 1, 17, true},
		{"LIST WHERE file[\"cday\"]", "file.cday is not available", 1, 17, true},
		{"LIST WHERE length(file.tasks) > 0", "file.tasks is not supported", 1, 24, true},
		{"LIST WHERE this.file.name = x", "this (the note holding the query)", 1, 12, true},
		{"LIST FROM [[]]", "[[]] and [[#…]]", 1, 11, true},
		{"LIST FROM [[#Heading]]", "[[]] and [[#…]]", 1, 11, true},
		{"LIST FROM csv(\"data.csv\")", "csv() sources", 1, 11, true},
		{"LIST FROM", "FROM needs something after it", 1, 10, false},
		{"LIST FROM folder", "expected a source", 1, 11, false},
		{"LIST FROM #", "expected a tag name", 1, 11, false},
		{"LIST FROM #a and", "expected a source", 1, 17, false},
		{"LIST FROM (#a or #b", "expected ')' to close the parenthesis", 1, 20, false},
		{"LIST FROM \"unterminated", "unterminated text", 1, 11, false},
		{"LIST FROM [[Note", "unterminated link", 1, 11, false},
		{"LIST FROM outgoing(#a)", "outgoing( takes a [[link]]", 1, 20, false},
		{"LIST WHERE a = 1\nFROM #x", "FROM must come once", 2, 1, false},
		{"LIST FROM #a FROM #b", "FROM must come once", 1, 14, false},
		{"LIST WHERE", "WHERE needs something after it", 1, 11, false},
		{"LIST WHERE a ==  1", "use = (not ==)", 1, 14, false},
		{"LIST WHERE a = 'x'", "double quotes", 1, 16, false},
		{"LIST WHERE (a = 1", "expected ')'", 1, 18, false},
		{"LIST WHERE a = ", "expected a value, field or function but found the end of the query", 1, 16, false},
		{"LIST WHERE from = 1", "from is a keyword", 1, 12, false},
		{"LIST WHERE a &&& b", "expected a value", 1, 15, false},
		{"LIST WHERE contains(a)", "contains() takes 2 arguments", 1, 12, false},
		{"LIST WHERE a.b(1)", "only named functions can be called", 1, 15, false},
		{"LIST WHERE a.", "expected a field name after '.'", 1, 14, false},
		{"LIST WHERE a[1", "expected ']'", 1, 15, false},
		{"LIST\nWHERE a\nORDER BY b", "use SORT", 3, 1, false},
		{"LIST\nWHERE a b", `unexpected "b"; expected FROM, WHERE, SORT or LIMIT`, 2, 9, false},
		{"TABLE a b", `unexpected "b"`, 1, 9, false},
		{"TABLE a, a", `column "a" appears twice`, 1, 10, false},
		{"TABLE a AS", "expected a column name after AS", 1, 11, false},
		{"TABLE WITHOUT x", `unexpected "x"`, 1, 15, false},
		{"LIST WHERE date(\"2024-01-31\", \"yyyy-MM-dd\")", "date(text, format) is not supported", 1, 12, true},
		{"LIST WHERE x = \"é\" +", "expected a value", 1, 21, false},
		{"LIST WHERE " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nests too deeply", 1, 0, false},
		{"```python\nLIST\n```", "a ``` fence must be ```dataview", 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := Parse(tt.query)
			if err == nil {
				t.Fatalf("Parse = %s, want an error", dump(q))
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", pe.Msg, tt.msg)
			}
			if pe.Line != tt.line || (tt.col != 0 && pe.Column != tt.col) {
				t.Errorf("position line %d column %d, want %d:%d", pe.Line, pe.Column, tt.line, tt.col)
			}
			if pe.Unsupported != tt.unsupported {
				t.Errorf("Unsupported = %v, want %v", pe.Unsupported, tt.unsupported)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("(line %d, column %d)", pe.Line, pe.Column)) {
				t.Errorf("Error() = %q does not give the position", err.Error())
			}
		})
	}
}

func TestScanDate(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
		n  int
	}{
		{"2024-01-31", true, 10},
		{"2024-02-30", false, 10},
		{"2024-13-01", false, 10},
		{"2024-01", true, 7},
		{"2024-1-01", false, 0},
		{"2024-01-31T25:00", false, 16},
		{"2024-01-31T10:20:30.123+05:30", true, 29},
		{"2024-01-31T10:20[Europe/Paris]", true, 30},
		{"2024-01-31 10:20", true, 10},
		{"20240131", false, 0},
	} {
		_, n, ok := scanDate(tt.in)
		if ok != tt.ok || (ok && n != tt.n) {
			t.Errorf("scanDate(%q) = %d, %v; want %d, %v", tt.in, n, ok, tt.n, tt.ok)
		}
	}
}
