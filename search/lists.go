package search

import (
	"context"
	"maps"

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
	allow := e.allowTypes(e.allow(req.Folder, req.Tag, filter), req.Types)
	lists, err := e.rank(ctx, req, allow, &Result{})
	if err != nil {
		return nil, err
	}
	weights := e.Weights()
	maps.Copy(weights, req.Weights)
	fusing, observed := splitByWeight(lists, weights)
	if fb, ok := e.feedback(ctx, req, allow, fusing, rankers.Fuse(fusing, e.opts.RRFK, weights), weights); ok {
		fusing = append(fusing, fb)
	}
	return append(fusing, observed...), nil
}
