package search

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// This file blends freshness and frontmatter importance into the fused
// ranking (recency_weight, importance_weight). With both weights 0 — the
// default — nothing here runs and the ranking is the plain fusion's.
//
// The blend is
//
//	final = (1 − wr − wi)·relevance + wr·recency + wi·importance
//
// over every fused candidate (after min_signals and the graph boost,
// before the cut to limit), each part in [0, 1]:
//   - relevance is the candidate's fused score divided by the best
//     candidate's. RRF scores are tiny (about 1/60) and their scale moves
//     with the number of signals and their weights, so a raw score would be
//     swamped by any weight; over the best it is scale-free, the top is 1,
//     and the ratios between candidates are kept (a min-max scale would
//     make the last candidate 0, and its value would then depend on how
//     deep the signals ranked).
//   - recency is 0.5^(age/half-life): 1 for a file modified now, 0.5 at
//     the half-life (Options.StaleDays, --stale-days), never 0. The age is
//     the one age_days shows (the file's live modification time by the
//     engine's clock), in fractional days.
//   - importance is the frontmatter importance over 10 (see Importance).
//
// The weights must sum to at most 1, so relevance never counts negatively.

// Blend is how a blended hit's score came about (nil when both weights
// are 0).
type Blend struct {
	Relevance  float64
	Recency    float64
	Importance float64
}

// blendWeights resolves a request's weights: its own, else the engine's
// default recency weight, else 0.
func (e *Engine) blendWeights(req Request) (wr, wi float64) {
	wr = e.opts.RecencyWeight
	if req.RecencyWeight != nil {
		wr = *req.RecencyWeight
	}
	if req.ImportanceWeight != nil {
		wi = *req.ImportanceWeight
	}
	return wr, wi
}

// checkBlendWeights validates the weights a request resolves to.
func (e *Engine) checkBlendWeights(req Request) error {
	for _, w := range []struct {
		name string
		v    *float64
	}{{"recency_weight", req.RecencyWeight}, {"importance_weight", req.ImportanceWeight}} {
		if w.v != nil && !(*w.v >= 0 && *w.v <= 1) { // NaN fails too
			return invalid("%s must be between 0 and 1, got %v", w.name, *w.v)
		}
	}
	if wr, wi := e.blendWeights(req); wr+wi > 1+1e-9 {
		from := ""
		if req.RecencyWeight == nil {
			from = ", the server's --recency-weight"
		}
		return invalid("recency_weight (%g%s) + importance_weight (%g) must not exceed 1, so that relevance keeps a weight of at least 0", wr, from, wi)
	}
	return nil
}

// blend re-scores fused (in place, re-sorted; ties keep the fused order)
// and returns each candidate's parts in the new order, or nil when both
// weights are 0 and fused is left exactly as it was.
func (e *Engine) blend(fused []rankers.Fused, req Request) []Blend {
	wr, wi := e.blendWeights(req)
	if (wr == 0 && wi == 0) || len(fused) == 0 {
		return nil
	}
	top := fused[0].Score
	for _, f := range fused {
		top = max(top, f.Score)
	}
	now := e.opts.Now()
	type scored struct {
		f rankers.Fused
		b Blend
	}
	all := make([]scored, len(fused))
	for i, f := range fused {
		n := e.snap.Notes[f.Note]
		b := Blend{Relevance: 1, Importance: Importance(n)}
		if top > 0 {
			b.Relevance = f.Score / top
		}
		b.Recency = Recency(now.Sub(e.modTime(n)), e.opts.StaleDays)
		f.Score = (1-wr-wi)*b.Relevance + wr*b.Recency + wi*b.Importance
		all[i] = scored{f, b}
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		switch {
		case a.f.Score > b.f.Score:
			return -1
		case a.f.Score < b.f.Score:
			return 1
		}
		return 0
	})
	parts := make([]Blend, len(all))
	for i, s := range all {
		fused[i], parts[i] = s.f, s.b
	}
	return parts
}

// neutralImportance is Importance of a note without a valid value.
const neutralImportance = float64(rankers.NeutralImportance) / rankers.MaxImportance

// Recency is the freshness of a file of the given age: 0.5^(age/halfLife
// days), 1 for an age of 0 or less (a file dated in the future).
func Recency(age time.Duration, halfLifeDays int) float64 {
	if age <= 0 || halfLifeDays <= 0 {
		return 1
	}
	days := age.Hours() / 24
	return math.Exp2(-days / float64(halfLifeDays))
}

// Importance is a note's frontmatter importance (key "importance",
// matched case-insensitively) scaled to [0, 1]: a number, or a string
// holding one, from 0 to 10. A missing, non-numeric or out-of-range value
// counts as the neutral 5 (0.5).
func Importance(n *vault.Note) float64 {
	v, ok := lookupKey(n.Frontmatter, "importance")
	if !ok {
		return neutralImportance
	}
	var x float64
	switch t := v.(type) {
	case int:
		x = float64(t)
	case int64:
		x = float64(t)
	case uint64:
		x = float64(t)
	case float64:
		x = t
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			return neutralImportance
		}
		x = f
	default:
		return neutralImportance
	}
	if !(x >= 0 && x <= rankers.MaxImportance) {
		return neutralImportance
	}
	return x / rankers.MaxImportance
}
