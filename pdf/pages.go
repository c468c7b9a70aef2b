package pdf

import (
	"context"

	lpdf "github.com/ledongthuc/pdf"
)

// Bounds on the page tree walk.
const (
	// maxTreeDepth bounds the nesting of the page tree; real files use a
	// handful of levels, and a cyclic /Kids reference must not recurse
	// forever.
	maxTreeDepth = 64
	// maxWalkNodes bounds the nodes visited whatever the page limit.
	maxWalkNodes = 1 << 22
	// ctxCheckNodes is how many nodes are visited between checks of the
	// context (each visit may load objects).
	ctxCheckNodes = 64
)

// pageWalker collects leaf pages of a page tree in document order.
//
// It replaces the library's Reader.Page(i), which walks from the root for
// every page (quadratic in the number of pages) and loops forever on a page
// tree whose /Kids refer back to an ancestor. Values carry no identity that
// could detect such cycles, so the walk is bounded by depth and by a budget
// of visited nodes instead.
type pageWalker struct {
	ctx    context.Context
	max    int         // pages wanted
	budget int         // page-tree nodes that may still be visited
	visits int         // nodes visited
	pages  []lpdf.Page // leaves found, at most max
	more   bool        // a leaf beyond max exists
	err    error       // the context's error, if it was cancelled
}

// collectPages returns the first limit pages of r, the number of pages in
// the file and whether pages beyond limit exist. The count is the number of
// leaves found when the whole tree was walked; when the walk stopped at limit
// it is the document's declared /Count (at least limit+1). The error is
// ctx's, if it was cancelled during the walk.
func collectPages(ctx context.Context, r *lpdf.Reader, limit int) (pages []lpdf.Page, numPages int, more bool, err error) {
	w := &pageWalker{ctx: ctx, max: limit, budget: walkBudget(limit)}
	root := safeValue(func() lpdf.Value { return r.Trailer().Key("Root").Key("Pages") })
	if !root.IsNull() {
		w.walk(root, 0)
	}
	if w.err != nil {
		return nil, 0, false, w.err
	}
	if !w.more {
		return w.pages, len(w.pages), false, nil
	}
	declared := 0
	if v := safeValue(func() lpdf.Value { return root.Key("Count") }); v.Kind() == lpdf.Integer {
		declared = int(v.Int64())
	}
	// more means limit pages were found (and one more): limit+1 cannot
	// overflow.
	return w.pages, max(declared, limit+1), true, nil
}

// walkBudget returns how many page-tree nodes may be visited to find limit
// pages: ten per page plus 10000, at most maxWalkNodes (which also keeps
// the computation from overflowing for huge limits).
func walkBudget(limit int) int {
	if limit >= (maxWalkNodes-10000)/10 {
		return maxWalkNodes
	}
	return 10*limit + 10000
}

// walk visits node, an intermediate /Pages node or a leaf /Page.
func (w *pageWalker) walk(node lpdf.Value, depth int) {
	if w.more || w.err != nil || w.budget <= 0 || depth > maxTreeDepth {
		return
	}
	w.budget--
	if w.visits++; w.visits%ctxCheckNodes == 0 {
		if w.err = w.ctx.Err(); w.err != nil {
			return
		}
	}
	kids := safeValue(func() lpdf.Value { return node.Key("Kids") })
	typ := safeValue(func() lpdf.Value { return node.Key("Type") })
	if kids.Kind() != lpdf.Array || typ.Name() == "Page" {
		w.addLeaf(node)
		return
	}
	for i := 0; i < kids.Len() && !w.more && w.err == nil && w.budget > 0; i++ {
		kid, ok := safeIndex(kids, i)
		if !ok {
			// The kid's object is unreadable: keep a placeholder page (with
			// no content, so empty text) to preserve the page numbering as
			// well as possible.
			w.addLeaf(lpdf.Value{})
			continue
		}
		if kid.Kind() != lpdf.Dict {
			continue // null or dangling reference: not a page
		}
		w.walk(kid, depth+1)
	}
}

// addLeaf records a page, or notes that there are more than max pages.
func (w *pageWalker) addLeaf(v lpdf.Value) {
	if len(w.pages) >= w.max {
		w.more = true
		return
	}
	w.pages = append(w.pages, lpdf.Page{V: v})
}

// safeValue calls get, turning a panic inside the library (raised when an
// object cannot be parsed) into a null Value.
func safeValue(get func() lpdf.Value) (v lpdf.Value) {
	defer func() {
		if recover() != nil {
			v = lpdf.Value{}
		}
	}()
	return get()
}

// safeIndex returns element i of array, and false if resolving it panicked.
func safeIndex(array lpdf.Value, i int) (v lpdf.Value, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = lpdf.Value{}, false
		}
	}()
	return array.Index(i), true
}
