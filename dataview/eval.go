package dataview

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// maxRepeat bounds one "text" * n, and maxRepeatTotal all of them in a
// run, so a query cannot exhaust memory.
const (
	maxRepeat      = 1 << 20
	maxRepeatTotal = 32 << 20
)

// evaluator runs expressions over the pages of one snapshot. It belongs to
// one Run (the collator and the link cache are not safe for concurrent
// use).
type evaluator struct {
	*conv
	ix    *Columns
	now   time.Time
	cmp   comparer
	links map[string]Link // query link literal → resolved
	// bulk is set while a step runs over many pages: field values then
	// come from (and fill) the index's per-snapshot columns.
	bulk bool
	// fieldCols and fileCols remember the columns this run fetched (nil:
	// not available), so a page's field is a map lookup without locking.
	fieldCols, fileCols map[string][]Value
	// textBudget is what "text" * n may still build in this run (bytes).
	textBudget int
}

// column returns the index's column for a field, fetched once per run.
func (ev *evaluator) column(cache map[string][]Value, kind, name string, build func(*conv, int) Value) []Value {
	col, ok := cache[name]
	if !ok {
		col = ev.ix.column(kind+name, ev.conv, build)
		cache[name] = col
	}
	return col
}

func newEvaluator(ix *Columns, now time.Time) *evaluator {
	c := ix.conv
	if c.loc != now.Location() { // another zone: the cached values do not apply
		c = &conv{snap: c.snap, g: c.g, loc: now.Location()}
	}
	return &evaluator{
		conv: c, ix: ix, now: now, cmp: newComparer(), links: map[string]Link{},
		fieldCols: map[string][]Value{}, fileCols: map[string][]Value{}, textBudget: maxRepeatTotal,
	}
}

func (ev *evaluator) page(i int) *pageObj {
	return &pageObj{ev: ev, idx: i, note: ev.snap.Notes[i]}
}

// pageOfLink returns the page a (resolved) link points to, or nil.
func (ev *evaluator) pageOfLink(l Link) *pageObj {
	i, ok := ev.snap.NoteID(l.Path)
	if !ok {
		if k, p := ev.snap.Resolve(l.Path, ""); k == vault.LinkNote {
			i, ok = ev.snap.NoteID(p)
		}
	}
	if !ok || !ev.isPage(i) {
		return nil
	}
	return ev.page(i)
}

// eval computes an expression for a page (nil: no page, as for LIMIT).
func (ev *evaluator) eval(e expr, pg *pageObj) (Value, error) {
	switch x := e.(type) {
	case *literalExpr:
		return x.val, nil
	case *dateWordExpr:
		return dateWord(x.word, ev.now), nil
	case *dateExpr:
		return x.d.in(ev.loc), nil
	case *linkExpr:
		key := x.link.Path
		l, ok := ev.links[key]
		if !ok {
			l = ev.resolveLink(Link{Path: key}, "")
			ev.links[key] = l
		}
		out := x.link
		out.Path = l.Path
		return out, nil
	case *listExpr:
		out := make([]Value, len(x.elems))
		for i, el := range x.elems {
			v, err := ev.eval(el, pg)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *varExpr:
		if pg == nil {
			return nil, nil
		}
		if x.name == "row" {
			return pg, nil
		}
		return pg.field(x.name), nil
	case *indexExpr:
		return ev.evalIndex(x, pg)
	case *callExpr:
		args := make([]Value, len(x.args))
		for i, a := range x.args {
			v, err := ev.eval(a, pg)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		return ev.callFunction(x.name, args)
	case *negExpr:
		v, err := ev.eval(x.child, pg)
		if err != nil {
			return nil, err
		}
		return !truthy(v), nil
	case *binExpr:
		// Dataview evaluates both sides, even of and/or.
		a, err := ev.eval(x.left, pg)
		if err != nil {
			return nil, err
		}
		b, err := ev.eval(x.right, pg)
		if err != nil {
			return nil, err
		}
		return ev.binary(x.op, a, b)
	}
	return nil, &fatalError{msg: "unknown expression", pos: e.exprPos(), unsupported: true}
}

func (ev *evaluator) evalIndex(x *indexExpr, pg *pageObj) (Value, error) {
	idx, err := ev.eval(x.index, pg)
	if err != nil {
		return nil, err
	}
	obj, err := ev.eval(x.obj, pg)
	if err != nil {
		return nil, err
	}
	return ev.index(obj, idx, x.pos)
}

// index is a.b / a[b]: a field of an object or linked page, an element of
// a list (or the field of every element), a part of a date or duration.
func (ev *evaluator) index(obj, idx Value, pos int) (Value, error) {
	key, isText := idx.(string)
	num, isNum := idx.(float64)
	if !isText && !isNum {
		return nil, rowErrorf("can only index with a string, variable, or number")
	}
	switch o := obj.(type) {
	case *fileObj:
		if isText {
			if msg, bad := unsupportedFile[key]; bad {
				return nil, &fatalError{msg: msg, pos: pos, unsupported: true}
			}
		}
		return ev.indexObject(o, key, isText)
	case Object:
		return ev.indexObject(o, key, isText)
	case Link:
		if !isText {
			return nil, rowErrorf("can only index into links with strings (a.b or a[\"b\"])")
		}
		p := ev.pageOfLink(o)
		if p == nil {
			return nil, nil
		}
		return ev.index(p, key, pos)
	case []Value:
		if isNum {
			if num < 0 || num >= float64(len(o)) || num != math.Trunc(num) {
				return nil, nil
			}
			return o[int(num)], nil
		}
		out := make([]Value, 0, len(o))
		for _, e := range o {
			v, err := ev.index(e, key, pos)
			if err != nil {
				if _, fatal := err.(*fatalError); fatal {
					return nil, err
				}
				continue
			}
			out = append(out, v)
		}
		return out, nil
	case string:
		if !isNum {
			return nil, rowErrorf("string indexing requires a numeric index (string[index])")
		}
		units := utf16.Encode([]rune(o))
		if num < 0 || num >= float64(len(units)) || num != math.Trunc(num) {
			return nil, nil
		}
		return string(utf16.Decode(units[int(num) : int(num)+1])), nil
	case time.Time:
		if !isText {
			return nil, rowErrorf("date indexing requires a string representing the unit")
		}
		return datePart(o, key), nil
	case Duration:
		if !isText {
			return nil, rowErrorf("duration indexing requires a string representing the unit")
		}
		return durationPart(o, key), nil
	}
	return nil, nil
}

func (ev *evaluator) indexObject(o Object, key string, isText bool) (Value, error) {
	if !isText {
		return nil, rowErrorf("can only index into objects with strings (a.b or a[\"b\"])")
	}
	return lookup(o, key), nil
}

// datePart is date.year, date.month, … (Luxon's fields).
func datePart(t time.Time, unit string) Value {
	switch unit {
	case "year":
		return float64(t.Year())
	case "month":
		return float64(t.Month())
	case "weekyear": // Dataview returns the ISO week number here
		_, w := t.ISOWeek()
		return float64(w)
	case "week":
		return float64(t.Day()/7 + 1)
	case "weekday":
		return float64((int(t.Weekday())+6)%7 + 1)
	case "day":
		return float64(t.Day())
	case "hour":
		return float64(t.Hour())
	case "minute":
		return float64(t.Minute())
	case "second":
		return float64(t.Second())
	case "millisecond":
		return float64(t.Nanosecond() / int(time.Millisecond))
	}
	return nil
}

// durationPart is the whole duration expressed in one unit.
func durationPart(d Duration, unit string) Value {
	const day = 24 * 3600 * 1000.0
	per := map[string]float64{
		"year": 365 * day, "years": 365 * day, "month": 30 * day, "months": 30 * day, "weeks": 7 * day,
		"day": day, "days": day, "hour": 3600000, "hours": 3600000, "minute": 60000, "minutes": 60000,
		"second": 1000, "seconds": 1000, "millisecond": 1, "milliseconds": 1,
	}[unit]
	if per == 0 {
		return nil
	}
	return d.millis() / per
}

// binary applies an operator with Dataview's typing rules; a combination
// Dataview does not define (number + null, …) fails the row.
func (ev *evaluator) binary(op string, a, b Value) (Value, error) {
	switch op {
	case "=", "!=", "<", "<=", ">", ">=":
		c := ev.cmp.compare(a, b)
		switch op {
		case "=":
			return c == 0, nil
		case "!=":
			return c != 0, nil
		case "<":
			return c < 0, nil
		case "<=":
			return c <= 0, nil
		case ">":
			return c > 0, nil
		}
		return c >= 0, nil
	case "&":
		return truthy(a) && truthy(b), nil
	case "|":
		return truthy(a) || truthy(b), nil
	}
	if v, ok := arithmetic(op, a, b); ok {
		return v, nil
	}
	if _, ok := a.(string); ok && op == "+" {
		return a.(string) + toText(b, false), nil
	}
	if _, ok := b.(string); ok && op == "+" {
		return toText(a, false) + b.(string), nil
	}
	if v, ok, err := ev.repeat(op, a, b); ok {
		return v, err
	}
	return nil, rowErrorf("No implementation found for '%s %s %s'", typeOf(a), op, typeOf(b))
}

// arithmetic covers numbers, dates, durations, lists, objects and nulls.
func arithmetic(op string, a, b Value) (Value, bool) {
	switch x := a.(type) {
	case float64:
		switch y := b.(type) {
		case float64:
			return numberOp(op, x, y)
		case Duration:
			if op == "*" {
				return y.scale(x), true
			}
		}
	case time.Time:
		switch y := b.(type) {
		case Duration:
			switch op {
			case "+":
				return addDuration(x, y), true
			case "-":
				return addDuration(x, y.scale(-1)), true
			}
		case time.Time:
			if op == "-" {
				return diffDates(x, y), true
			}
		case nil:
			if op == "+" || op == "-" {
				return nil, true
			}
		}
	case Duration:
		switch y := b.(type) {
		case Duration:
			switch op {
			case "+":
				return x.plus(y), true
			case "-":
				return x.plus(y.scale(-1)), true
			}
		case time.Time:
			if op == "+" {
				return addDuration(y, x), true
			}
		case float64:
			switch op {
			case "*":
				return x.scale(y), true
			case "/":
				return x.scale(1 / y), true
			}
		}
	case []Value:
		if y, ok := b.([]Value); ok && op == "+" {
			return append(append(make([]Value, 0, len(x)+len(y)), x...), y...), true
		}
	case Object:
		if y, ok := b.(Object); ok && op == "+" {
			out := valueObj{}
			for _, o := range []Object{x, y} {
				for _, k := range o.Keys() {
					out[k], _ = o.Get(k)
				}
			}
			return out, true
		}
	case nil:
		switch b.(type) {
		case nil:
			return nil, true
		case time.Time:
			if op == "+" || op == "-" {
				return nil, true
			}
		}
	}
	return nil, false
}

func numberOp(op string, x, y float64) (Value, bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/":
		return x / y, true
	case "%":
		return math.Mod(x, y), true
	}
	return nil, false
}

// repeat is "text" * n (and n * "text").
func (ev *evaluator) repeat(op string, a, b Value) (Value, bool, error) {
	if op != "*" {
		return nil, false, nil
	}
	s, n, ok := "", 0.0, false
	if x, isText := a.(string); isText {
		s = x
		n, ok = b.(float64)
	} else if x, isText := b.(string); isText {
		s = x
		n, ok = a.(float64)
	}
	if !ok {
		return nil, false, nil
	}
	if n < 0 || math.IsNaN(n) {
		return "", true, nil
	}
	size := float64(len(s)) * math.Trunc(n)
	if size > maxRepeat {
		return nil, true, rowErrorf("text * %s would be too long", formatNumber(n))
	}
	if ev.textBudget -= int(size); ev.textBudget < 0 {
		return nil, true, &fatalError{msg: fmt.Sprintf("the query builds more than %d MB of text with *", maxRepeatTotal>>20)}
	}
	return strings.Repeat(s, int(n)), true, nil
}
