package dataview

// Query types.
const (
	TypeList  = "list"
	TypeTable = "table"
)

// Query is a parsed Dataview (DQL) query, ready to run on any snapshot.
// It is immutable and safe for concurrent use.
type Query struct {
	// Text is the query as given.
	Text string
	// Type is TypeList or TypeTable.
	Type string
	// WithoutID is true for "TABLE WITHOUT ID" and "LIST WITHOUT ID".
	WithoutID bool
	// Columns are the TABLE columns, or the one LIST expression (if any).
	Columns []Column
	source  source // nil: every page
	steps   []step
}

// Column is one output column: its header and the expression computing
// it.
type Column struct {
	// Name is the AS name, or the expression's text.
	Name string
	pos  int
	expr expr
}

// step is one data command (WHERE, SORT, LIMIT), run in query order.
type step struct {
	kind  string // "where", "sort", "limit"
	pos   int
	expr  expr      // where, limit
	sorts []sortKey // sort
}

type sortKey struct {
	expr expr
	desc bool
}

// source is a FROM expression.
type source interface{ srcPos() int }

type (
	folderSource struct {
		pos  int
		path string
	}
	tagSource struct {
		pos int
		tag string // without '#'
	}
	linkSource struct {
		pos      int
		target   string // the link path as written
		outgoing bool
	}
	negSource struct {
		pos   int
		child source
	}
	binSource struct {
		pos         int
		and         bool
		left, right source
	}
)

func (s *folderSource) srcPos() int { return s.pos }
func (s *tagSource) srcPos() int    { return s.pos }
func (s *linkSource) srcPos() int   { return s.pos }
func (s *negSource) srcPos() int    { return s.pos }
func (s *binSource) srcPos() int    { return s.pos }

// expr is an expression node.
type expr interface{ exprPos() int }

type (
	// literalExpr is a constant (number, string, boolean, null, date,
	// duration).
	literalExpr struct {
		pos int
		val Value
	}
	// dateWordExpr is date(today), date(now), … evaluated at run time.
	dateWordExpr struct {
		pos  int
		word string
	}
	// dateExpr is a literal date whose wall clock is read in the run's
	// time zone (a literal without an explicit zone).
	dateExpr struct {
		pos int
		d   parsedDate
	}
	// linkExpr is a [[link]] literal, resolved from the vault root at run
	// time.
	linkExpr struct {
		pos  int
		link Link
	}
	listExpr struct {
		pos   int
		elems []expr
	}
	varExpr struct {
		pos  int
		name string
	}
	indexExpr struct {
		pos        int
		obj, index expr
	}
	callExpr struct {
		pos  int
		name string
		args []expr
	}
	negExpr struct {
		pos   int
		child expr
	}
	binExpr struct {
		pos         int
		op          string
		left, right expr
	}
)

func (e *literalExpr) exprPos() int  { return e.pos }
func (e *dateWordExpr) exprPos() int { return e.pos }
func (e *dateExpr) exprPos() int     { return e.pos }
func (e *linkExpr) exprPos() int     { return e.pos }
func (e *listExpr) exprPos() int     { return e.pos }
func (e *varExpr) exprPos() int      { return e.pos }
func (e *indexExpr) exprPos() int    { return e.pos }
func (e *callExpr) exprPos() int     { return e.pos }
func (e *negExpr) exprPos() int      { return e.pos }
func (e *binExpr) exprPos() int      { return e.pos }
