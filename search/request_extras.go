package search

import "math"

// MaxPassagesLimit is the largest max_passages.
const MaxPassagesLimit = 10

// normalizeExtras validates the passage, paging and dense-threshold
// arguments.
func (r *Request) normalizeExtras() error {
	if math.IsNaN(r.MinSimilarity) || r.MinSimilarity < 0 || r.MinSimilarity > 1 {
		return invalid("min_similarity must be between 0 and 1, got %v", r.MinSimilarity)
	}
	if r.MaxPassages != nil {
		if n := *r.MaxPassages; n < 1 || n > MaxPassagesLimit {
			return invalid("max_passages must be between 1 and %d, got %d", MaxPassagesLimit, n)
		}
		if r.Granularity == GranularityBlock {
			return invalid("max_passages applies to granularity %q only (block hits are passages already)", GranularityNote)
		}
	}
	return nil
}
