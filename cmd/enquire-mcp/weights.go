package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// weightsFlag parses "bm25=2,tfidf=1" into RRF weights.
type weightsFlag struct{ m map[string]float64 }

func (w *weightsFlag) String() string {
	if w == nil || len(w.m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range w.m {
		parts = append(parts, fmt.Sprintf("%s=%g", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (w *weightsFlag) Set(s string) error {
	known := []string{rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalEmbeddings, rankers.SignalFeedback, rankers.SignalProximity}
	w.m = map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || !slices.Contains(known, name) {
			return fmt.Errorf("want signal=weight with signal one of %s, got %q", strings.Join(known, ", "), part)
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("weight of %s must be a number ≥ 0, got %q", name, val)
		}
		w.m[name] = f
	}
	return nil
}
