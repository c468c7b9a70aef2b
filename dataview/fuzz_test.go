package dataview

import (
	"context"
	"errors"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary text to the parser (which must answer with a
// query or an *Error, never panic) and runs what parses on the fixture.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"LIST", `TABLE a, b AS "B" FROM "x" WHERE a > 1 SORT b DESC LIMIT 3`,
		`LIST FROM #a and (-"b" or [[c]]) or outgoing([[d|e]])`,
		`LIST WHERE file.mtime > date(today) - dur(7 days) AND contains(file.tags, "#x")`,
		`TABLE WITHOUT ID "★" * rating, date(2024-01-31T10:20:30.123+05:30), dur(1h 2m, 3s)`,
		`LIST WHERE !(a.b["c"][0] != null) | x & y`, "```dataview\nLIST // x\n```",
		`LIST WHERE "\"\\"`, "LIST WHERE [[a#^b|c]].d", "TABLE x\nGROUP BY y", "= x", "LIST WHERE date(",
		"LIST WHERE default(a, [1, [2, \"x\"]])", `LIST WHERE x = ![[p.png]]`, "LIST WHERE 状态 = 1",
	} {
		f.Add(seed)
	}
	snap, g := fixture(f)
	f.Fuzz(func(t *testing.T, query string) {
		q, err := Parse(query)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T %v is not *Error", query, err, err)
			}
			if pe.Pos < 0 || pe.Pos > len(query) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("Parse(%q) bad position %+v", query, pe)
			}
			return
		}
		if q.Type != TypeList && q.Type != TypeTable {
			t.Fatalf("Parse(%q) type %q", query, q.Type)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := q.Run(ctx, snap, g, testNow)
		if err != nil {
			return
		}
		for _, r := range res.Rows {
			for _, v := range r.Values {
				JSON(v)
			}
		}
	})
}
