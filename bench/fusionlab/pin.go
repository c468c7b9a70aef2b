package main

import (
	"slices"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// confidentMargin and confidentLift are the fifth pass's pin settings: the
// boost's strength then (0.1), not fitted values.
const confidentMargin, confidentLift = 0.1, 1.1

// enginePinConfident (candidate C1 of the fifth pass, measured and not kept)
// moves a clear lexical answer that rank fusion demoted back
// to the top of the fused list. Rank fusion keeps only ranks, so when one
// lexical signal (BM25 or TF-IDF) scores its first note far above its
// second and the other signal prefers a different note, RRF averages the
// two and the clear answer can land second or third. Here a signal is
// confident when its first candidate scores at least (1+margin) times its
// second (a ratio, so the signals' scales do not matter); if exactly one
// note has a confident, positively weighted signal behind it (two
// confident signals must agree), and the fusion ranked that note below
// first, it moves to first with lift × the former first's score — lift
// above 1 + the graph boost's strength puts it beyond the boost's reach.
// A note the fusion already ranks first is left as it is. Nil weights
// count every signal at 1, as in rankers.Fuse. The input is not modified.
func enginePinConfident(fused []rankers.Fused, lists []rankers.Ranked, weights map[string]float64, margin, lift float64) []rankers.Fused {
	pin, ok := confidentNote(lists, weights, margin)
	if !ok {
		return fused
	}
	i := slices.IndexFunc(fused, func(f rankers.Fused) bool { return f.Note == pin.Note && f.Chunk == pin.Chunk })
	if i <= 0 {
		return fused
	}
	out := slices.Clone(fused)
	it := out[i]
	it.Score = max(it.Score, lift*out[0].Score)
	copy(out[1:i+1], out[:i])
	out[0] = it
	return out
}

// confidentNote is the candidate the confident lexical signals agree on.
func confidentNote(lists []rankers.Ranked, weights map[string]float64, margin float64) (rankers.Candidate, bool) {
	var pin rankers.Candidate
	found := false
	for _, l := range lists {
		if l.Signal != rankers.SignalBM25 && l.Signal != rankers.SignalTFIDF {
			continue // feedback follows the fusion; cosines are not ratio-scale
		}
		if w, ok := weights[l.Signal]; ok && w <= 0 {
			continue
		}
		c := l.Candidates
		if len(c) == 0 || c[0].Score <= 0 || (len(c) > 1 && c[0].Score < (1+margin)*c[1].Score) {
			continue
		}
		if found && (pin.Note != c[0].Note || pin.Chunk != c[0].Chunk) {
			return rankers.Candidate{}, false
		}
		pin, found = c[0], true
	}
	return pin, found
}
