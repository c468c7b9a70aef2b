package dataview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// MaxRows caps the rows of a result; Result.Truncated says when more
// matched.
const MaxRows = 1000

// checkEvery is how many pages a loop handles between context checks.
const checkEvery = 256

// Result is a query's answer.
type Result struct {
	// Type is TypeList or TypeTable.
	Type string
	// Columns name the values of each row (TABLE columns, or the LIST
	// expression; empty for a plain LIST).
	Columns []string
	// Rows are the matching pages, in query order, at most MaxRows.
	Rows []Row
	// Total counts the rows before the MaxRows cap.
	Total int
	// Truncated is true when Total > len(Rows).
	Truncated bool
	// Warnings explain surprising answers: a FROM folder that does not
	// exist, a link that resolves nowhere, pages dropped because an
	// expression failed on them.
	Warnings []string
}

// Row is one page of the answer.
type Row struct {
	Path, Title string
	// Values are aligned with Result.Columns (see JSON to render them).
	Values []Value
}

// RunColumns is Run with columns that keep, between queries on their
// snapshot, the field values a query computed for every note.
func (q *Query) RunColumns(ctx context.Context, ix *Columns, now time.Time) (*Result, error) {
	r := &runner{q: q, ev: newEvaluator(ix, now), ctx: ctx}
	rows, err := r.collect()
	if err != nil {
		return nil, err
	}
	for _, st := range q.steps {
		r.ev.bulk = len(rows) >= ix.bulkAt
		if rows, err = r.step(st, rows); err != nil {
			return nil, err
		}
	}
	r.ev.bulk = len(rows) >= ix.bulkAt
	return r.extract(rows)
}

type runner struct {
	q        *Query
	ev       *evaluator
	ctx      context.Context
	warnings []string
}

func (r *runner) warn(format string, args ...any) {
	r.warnings = append(r.warnings, fmt.Sprintf(format, args...))
}

// collect lists the pages the FROM clause selects, in path order.
func (r *runner) collect() ([]int, error) {
	var set []bool
	if r.q.source == nil {
		set = r.allPages()
	} else {
		var err error
		if set, err = r.source(r.q.source); err != nil {
			return nil, err
		}
	}
	var rows []int
	for i, in := range set {
		if in {
			rows = append(rows, i)
		}
	}
	return rows, nil
}

func (r *runner) allPages() []bool {
	set := make([]bool, len(r.ev.snap.Notes))
	for i := range set {
		set[i] = r.ev.isPage(i)
	}
	return set
}

func (r *runner) source(s source) ([]bool, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	switch x := s.(type) {
	case *folderSource:
		return r.folder(x), nil
	case *tagSource:
		return r.tag(x), nil
	case *linkSource:
		return r.link(x)
	case *negSource:
		child, err := r.source(x.child)
		if err != nil {
			return nil, err
		}
		set := r.allPages()
		for i, in := range child {
			set[i] = set[i] && !in
		}
		return set, nil
	case *binSource:
		left, err := r.source(x.left)
		if err != nil {
			return nil, err
		}
		right, err := r.source(x.right)
		if err != nil {
			return nil, err
		}
		for i := range left {
			if x.and {
				left[i] = left[i] && right[i]
			} else {
				left[i] = left[i] || right[i]
			}
		}
		return left, nil
	}
	return nil, newError(r.q.Text, s.srcPos(), true, "unknown source")
}

// folder selects the pages in a folder and its subfolders; a path that is
// no folder selects the note at that path (".md" optional), as Dataview
// does. Paths are case-sensitive; a leading or trailing '/' is ignored.
func (r *runner) folder(x *folderSource) []bool {
	snap := r.ev.snap
	set := make([]bool, len(snap.Notes))
	dir := strings.Trim(x.path, "/")
	if dir == "" {
		return r.allPages()
	}
	prefix := dir + "/"
	exists := false
	for i, n := range snap.Notes {
		if strings.HasPrefix(n.Path, prefix) {
			exists = true
			set[i] = r.ev.isPage(i)
		}
	}
	for _, a := range snap.Attachments {
		exists = exists || strings.HasPrefix(a.Path, prefix)
	}
	if exists {
		return set
	}
	for i, n := range snap.Notes {
		if (n.Path == dir || n.Path == dir+".md") && r.ev.isPage(i) {
			set[i] = true
			return set
		}
	}
	r.warn("FROM %q: no such folder or note (paths are case-sensitive and start at the vault root)", x.path)
	return set
}

// tag selects the pages with a tag or a tag nested under it, ignoring
// case.
func (r *runner) tag(x *tagSource) []bool {
	ev := r.ev
	set := make([]bool, len(ev.snap.Notes))
	want := strings.ToLower(strings.TrimPrefix(x.tag, "#"))
	folded := ev.column(ev.fileCols, "folded:", "tags", func(c *conv, i int) Value {
		tags := make([]string, len(c.snap.Notes[i].Tags))
		for j, t := range c.snap.Notes[i].Tags {
			tags[j] = strings.ToLower(t)
		}
		return tags
	})
	for i, n := range ev.snap.Notes {
		if !ev.isPage(i) {
			continue
		}
		if folded == nil {
			set[i] = n.HasTag(want)
			continue
		}
		for _, t := range folded[i].([]string) {
			if t == want || strings.HasPrefix(t, want) && t[len(want)] == '/' {
				set[i] = true
				break
			}
		}
	}
	return set
}

// link selects the pages linking to a note (or attachment), or with
// outgoing, the pages a note links to.
func (r *runner) link(x *linkSource) ([]bool, error) {
	snap, g := r.ev.snap, r.ev.g
	set := make([]bool, len(snap.Notes))
	kind, p := snap.Resolve(x.target, "")
	if x.outgoing {
		idx, ok := snap.NoteID(p)
		if kind != vault.LinkNote || !ok {
			return nil, newError(r.q.Text, x.pos, false, "outgoing([[%s]]): no such note in the vault", x.target)
		}
		for _, e := range g.Outbound(idx) {
			if e.To >= 0 && r.ev.isPage(e.To) {
				set[e.To] = true
			}
		}
		return set, nil
	}
	var edges []graph.Edge
	switch kind {
	case vault.LinkNote:
		idx, _ := snap.NoteID(p)
		edges = g.Backlinks(idx)
	case vault.LinkAttachment:
		edges = g.AttachmentBacklinks(p)
	default:
		r.warn("[[%s]] resolves to no note; selecting the notes with that unresolved link", x.target)
		return r.unresolvedLinks(x.target, set), nil
	}
	for _, e := range edges {
		set[e.From] = r.ev.isPage(e.From)
	}
	return set, nil
}

func (r *runner) unresolvedLinks(target string, set []bool) []bool {
	want := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(target), ".md"))
	for _, u := range r.ev.g.Unresolved() {
		if strings.ToLower(strings.TrimSuffix(r.ev.g.UnresolvedTarget(u), ".md")) == want {
			set[u.From] = r.ev.isPage(u.From)
		}
	}
	return set
}

// step runs one WHERE, SORT or LIMIT.
func (r *runner) step(st step, rows []int) ([]int, error) {
	switch st.kind {
	case "where":
		return r.where(st, rows)
	case "sort":
		return r.sort(st, rows)
	}
	return r.limit(st, rows)
}

// failures counts the pages an expression failed on.
type failures struct {
	n     int
	first []string
}

// add records a page's failure; an unsupported feature fails the query.
func (r *runner) add(f *failures, err error) error {
	var fatal *fatalError
	if errors.As(err, &fatal) {
		return newError(r.q.Text, fatal.pos, fatal.unsupported, "%s", fatal.msg)
	}
	var row *rowError
	if !errors.As(err, &row) {
		return err
	}
	f.n++
	if len(f.first) < 3 && !slices.Contains(f.first, row.msg) {
		f.first = append(f.first, row.msg)
	}
	return nil
}

// settle fails the query when every page failed (as Dataview does) and
// otherwise warns about the pages dropped.
func (r *runner) settle(f *failures, what string, pos, incoming int) error {
	if f.n == 0 {
		return nil
	}
	detail := strings.Join(f.first, "; ")
	if f.n >= incoming {
		return newError(r.q.Text, pos, false, "%s failed on every page: %s", what, detail)
	}
	r.warn("%s failed on %d of %d pages, which were left out: %s", what, f.n, incoming, detail)
	return nil
}

func (r *runner) where(st step, rows []int) ([]int, error) {
	var f failures
	out := rows[:0:0]
	for k, i := range rows {
		if err := r.check(k); err != nil {
			return nil, err
		}
		v, err := r.ev.eval(st.expr, r.ev.page(i))
		if err != nil {
			if err := r.add(&f, err); err != nil {
				return nil, err
			}
			continue
		}
		if truthy(v) {
			out = append(out, i)
		}
	}
	return out, r.settle(&f, "WHERE", st.pos, len(rows))
}

func (r *runner) sort(st step, rows []int) ([]int, error) {
	var f failures
	n := len(st.sorts)
	items := make([]sortItem, 0, len(rows))
	keys, texts, ascii := make([]Value, n*len(rows)), make([][]byte, n*len(rows)), make([]bool, n*len(rows))
outer:
	for k, i := range rows {
		if err := r.check(k); err != nil {
			return nil, err
		}
		it := sortItem{row: i, order: k, keys: keys[k*n : (k+1)*n], text: texts[k*n : (k+1)*n], ascii: ascii[k*n : (k+1)*n]}
		for j, s := range st.sorts {
			v, err := r.ev.eval(s.expr, r.ev.page(i))
			if err != nil {
				if err := r.add(&f, err); err != nil {
					return nil, err
				}
				continue outer
			}
			it.keys[j] = v
		}
		items = append(items, it)
	}
	for j := range st.sorts {
		r.ev.cmp.textKeys(items, j)
	}
	perm := make([]int32, len(items)) // sort indices: items are large to swap
	for k := range perm {
		perm[k] = int32(k)
	}
	slices.SortFunc(perm, func(x, y int32) int { // stable: ties keep their order
		a, b := &items[x], &items[y]
		for j, s := range st.sorts {
			var c int
			if a.text[j] != nil && b.text[j] != nil && a.ascii[j] == b.ascii[j] {
				c = bytes.Compare(a.text[j], b.text[j])
			} else {
				c = r.ev.cmp.compare(a.keys[j], b.keys[j])
			}
			if s.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return a.order - b.order
	})
	out := make([]int, len(items))
	for k, x := range perm {
		out[k] = items[x].row
	}
	return out, r.settle(&f, "SORT", st.pos, len(rows))
}

// sortItem is a row with its sort keys; text holds, for text keys, bytes
// that compare as the collation orders the texts (keys of one kind, ascii
// or not, compare with each other).
type sortItem struct {
	row, order int
	keys       []Value
	text       [][]byte
	ascii      []bool
}

func (r *runner) limit(st step, rows []int) ([]int, error) {
	v, err := r.ev.eval(st.expr, nil)
	if err != nil {
		return nil, newError(r.q.Text, st.pos, false, "LIMIT failed: %v", err)
	}
	n, ok := v.(float64)
	if !ok {
		return nil, newError(r.q.Text, st.pos, false, "LIMIT needs a number, not %s", typeOf(v))
	}
	if n < 0 {
		return nil, newError(r.q.Text, st.pos, false, "LIMIT needs a number ≥ 0, not %s", formatNumber(n))
	}
	if n < float64(len(rows)) {
		rows = rows[:int(n)]
	}
	return rows, nil
}

// extract computes the columns of every row; like Dataview, a row whose
// column fails is left out.
func (r *runner) extract(rows []int) (*Result, error) {
	q := r.q
	res := &Result{Type: q.Type, Columns: make([]string, len(q.Columns)), Rows: []Row{}}
	for i, c := range q.Columns {
		res.Columns[i] = c.Name
	}
	var f failures
	failPos := 0
outer:
	for k, i := range rows {
		if err := r.check(k); err != nil {
			return nil, err
		}
		n := r.ev.snap.Notes[i]
		row := Row{Path: n.Path, Title: n.Title, Values: make([]Value, len(q.Columns))}
		for j, c := range q.Columns {
			v, err := r.ev.eval(c.expr, r.ev.page(i))
			if err != nil {
				if err := r.add(&f, err); err != nil {
					return nil, err
				}
				if f.n == 1 {
					failPos = c.pos
				}
				continue outer
			}
			row.Values[j] = v
		}
		res.Total++
		if len(res.Rows) < MaxRows {
			res.Rows = append(res.Rows, row)
		}
	}
	if err := r.settle(&f, "a column", failPos, len(rows)); err != nil {
		return nil, err
	}
	res.Truncated = res.Total > len(res.Rows)
	res.Warnings = r.warnings
	return res, nil
}

func (r *runner) check(k int) error {
	if k%checkEvery == 0 {
		return r.ctx.Err()
	}
	return nil
}
