package dataview

import (
	"fmt"
	"unicode/utf8"
)

// Error is a query that cannot be parsed, uses a part of Dataview this
// package does not implement, or fails as a whole when it runs. Pos says
// where in the query text the problem is.
type Error struct {
	// Msg describes the problem.
	Msg string
	// Pos is the byte offset in the query text; Line and Column (1-based,
	// columns counted in characters) are the same place for people.
	Pos          int
	Line, Column int
	// Unsupported is true when the query is valid Dataview that this
	// package does not implement (rather than a syntax error).
	Unsupported bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (line %d, column %d)", e.Msg, e.Line, e.Column)
}

// newError places a message at a byte offset of src.
func newError(src string, pos int, unsupported bool, format string, args ...any) *Error {
	pos = min(max(pos, 0), len(src))
	line, col := 1, 1
	for i := 0; i < pos; {
		r, size := utf8.DecodeRuneInString(src[i:])
		i += size
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{Msg: fmt.Sprintf(format, args...), Pos: pos, Line: line, Column: col, Unsupported: unsupported}
}

// rowError is an expression that failed on one page (for example
// "number - null"); like Dataview, the page is dropped, and the query only
// fails when every page fails.
type rowError struct{ msg string }

func (e *rowError) Error() string { return e.msg }

func rowErrorf(format string, args ...any) error { return &rowError{msg: fmt.Sprintf(format, args...)} }

// fatalError fails the whole query rather than one page: an expression
// reached a feature this package does not implement (file.ctime, …), never
// a silent wrong answer, or the query outgrew a resource limit.
type fatalError struct {
	msg         string
	pos         int
	unsupported bool
}

func (e *fatalError) Error() string { return e.msg }
