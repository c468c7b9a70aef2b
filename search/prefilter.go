package search

import (
	"context"
	"fmt"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// prefilterLimit is the chunk count from which the dense signal scores only
// the lexical signals' candidates (Options.PrefilterLimit, else
// rankers.DefaultPrefilterLimit; negative: never).
func (e *Engine) prefilterLimit() int {
	switch {
	case e.opts.PrefilterLimit < 0:
		return -1
	case e.opts.PrefilterLimit == 0:
		return rankers.DefaultPrefilterLimit
	}
	return e.opts.PrefilterLimit
}

// prefiltering reports whether this search scores the dense signal only
// on the lexical candidates: the vault holds more chunk vectors than the
// limit and at least one lexical signal runs alongside the dense one.
func (e *Engine) prefiltering(use []rankers.Ranker) bool {
	limit := e.prefilterLimit()
	emb := e.dense()
	if limit < 0 || emb == nil || emb.Len() <= limit {
		return false
	}
	dense, lexical := false, false
	for _, r := range use {
		if r == rankers.Ranker(emb) {
			dense = true
		} else {
			lexical = true
		}
	}
	return dense && lexical
}

// runRankers runs the rankers of use, each asking for depth candidates.
// Without prefilter they all run at once. With it, the lexical signals run
// first (each asked for at least rankers.PrefilterDepth candidates, then
// cut back to depth) and the dense signal then scores only the chunks of
// the notes they found. When they found nothing, the dense signal scores
// everything: a query whose words no note contains is exactly the one
// where the dense signal matters.
func (e *Engine) runRankers(ctx context.Context, use []rankers.Ranker, base rankers.Request, depth int) ([]rankers.Ranked, []error) {
	lists := make([]rankers.Ranked, len(use))
	errs := make([]error, len(use))
	for i, r := range use {
		lists[i].Signal = r.Name()
	}
	if !e.prefiltering(use) {
		base.Limit = depth
		runEach(ctx, use, lists, errs, func(int) rankers.Request { return base })
		return lists, errs
	}
	emb := rankers.Ranker(e.dense())
	lexical, dense := make([]int, 0, len(use)), -1
	for i, r := range use {
		if r == emb {
			dense = i
		} else {
			lexical = append(lexical, i)
		}
	}
	wide := base
	wide.Limit = max(depth, rankers.PrefilterDepth)
	runEach(ctx, use, lists, errs, func(i int) rankers.Request {
		if i == dense {
			return rankers.Request{Limit: -1} // skipped: runs below
		}
		return wide
	})
	within := make([]bool, len(e.snap.Notes))
	found := false
	for _, i := range lexical {
		for _, c := range lists[i].Candidates {
			within[c.Note], found = true, true
		}
		lists[i].Candidates = lists[i].Candidates[:min(depth, len(lists[i].Candidates))]
	}
	req := base
	req.Limit = depth
	if found {
		req.Within = within
	}
	runEach(ctx, use[dense:dense+1], lists[dense:dense+1], errs[dense:dense+1], func(int) rankers.Request { return req })
	return lists, errs
}

// runEach runs every ranker of use concurrently with the request reqOf
// gives it (a request with a negative Limit is not run), recovering a
// panicking ranker as its error.
func runEach(ctx context.Context, use []rankers.Ranker, lists []rankers.Ranked, errs []error, reqOf func(i int) rankers.Request) {
	var wg sync.WaitGroup
	for i, r := range use {
		req := reqOf(i)
		if req.Limit < 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("internal error: %v", p)
				}
			}()
			lists[i].Candidates, errs[i] = r.Rank(ctx, req)
		}()
	}
	wg.Wait()
}
