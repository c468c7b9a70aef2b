package search

import "time"

// Now is the engine's clock (Options.Now, time.Now by default), so tools
// computing ages and "recent" windows agree with search and can be pinned
// in tests.
func (e *Engine) Now() time.Time { return e.opts.Now() }
