package search

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// SignalLists runs a search's signals and returns every signal's own ranked
// list, before fusion: the lists of zero-weight signals too, and the
// feedback list drawn from the first pass of the weighted ones. It is what
// offline fusion experiments replay (`enquire-mcp eval --dump-lists`); a
// search itself goes through Search.
func (e *Engine) SignalLists(ctx context.Context, req Request) ([]rankers.Ranked, error) {
	filter, err := req.normalize()
	if err != nil {
		return nil, err
	}
	rl, err := e.rankAndFuse(ctx, req, filter)
	if err != nil {
		return nil, err
	}
	return append(rl.fusing, rl.observed...), nil
}
