package tools

import (
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/search"
)

// perEngine keeps one value a tool family derives from the serving engine
// (indexes built on first use). A write swaps in a new engine; the next
// call then derives a new value, while calls still running keep theirs.
// The zero value is ready to use.
type perEngine[T any] struct {
	cur atomic.Pointer[derived[T]]
}

type derived[T any] struct {
	eng *search.Engine
	val *T
}

// derive returns the value for e, made with newVal when e is not the
// engine the current value was made for.
func (p *perEngine[T]) derive(e *search.Engine, newVal func(*search.Engine) *T) *T {
	for {
		cur := p.cur.Load()
		if cur != nil && cur.eng == e {
			return cur.val
		}
		next := &derived[T]{eng: e, val: newVal(e)}
		if p.cur.CompareAndSwap(cur, next) {
			return next.val
		}
	}
}
