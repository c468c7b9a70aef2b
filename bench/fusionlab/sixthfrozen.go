package main

import (
	"fmt"
	"strings"
)

// frozenRule is one of the sixth pass's frozen candidates: self-supervised
// query kinds tried in order (the first that decides wins), each needing
// min queries; the grid's best configuration replaces the default when its
// paired t statistic against the default is ≥ minT, or (minT 0) when it
// beats the default by margin.
type frozenRule struct {
	name   string
	kinds  []string
	min    int
	grid   []gridConfig
	minT   float64
	margin float64
}

// sixthFrozen are the candidates frozen before the held-out sets were read.
func sixthFrozen() []frozenRule {
	ratio7 := ratioGrid(0.5, "bm", "4:1", "2:1", "1:1", "1:2", "1:4", "tf")
	return []frozenRule{
		{"C1 links t2 ratio3", []string{"l"}, 20, ratioGrid(0.5, "2:1", "1:1", "1:2"), 2, 0},
		{"C2 links>headings t2 ratio7", []string{"l", "h"}, 20, ratio7, 2, 0},
		{"C3 links-x margin0.005 full", []string{"lx"}, 50, sixthGrid(), 0, 0.005},
	}
}

// choose applies r to group g's self sets: the configuration and why.
func (r frozenRule) choose(sets []*set, g string) (gridConfig, string) {
	def := gridConfig{"def", defaultWeights()}
	for _, k := range r.kinds {
		var s *set
		for _, x := range sets {
			if x.name == g+"_s"+k {
				s = x
			}
		}
		if s == nil || len(s.qs) < r.min {
			continue
		}
		base, _ := score(s, weighted(def.w))
		best, bestV := def, base
		for _, c := range r.grid {
			if v, _ := score(s, weighted(c.w)); v > bestV {
				best, bestV = c, v
			}
		}
		if best.name == "def" {
			continue
		}
		t := pairedT(s, weighted(best.w), weighted(def.w))
		if r.minT > 0 && t >= r.minT || r.minT == 0 && bestV-base >= r.margin {
			return best, fmt.Sprintf("%s=%s(%s +%.4f t%.2f n%d)", g, best.name, k, bestV-base, t, len(s.qs))
		}
	}
	return def, ""
}

// expSixthFrozen scores the frozen candidates on every judged set (named
// GROUP_NAME; self sets are GROUP_sKIND).
func expSixthFrozen(sets []*set) {
	groups, judged := splitGroups(sets)
	head := "rule"
	for _, s := range judged {
		head += "\t" + s.name
	}
	fmt.Println(head + "\thandsum\tchoices")
	rules := append([]frozenRule{{name: "default"}}, sixthFrozen()...)
	for _, r := range rules {
		chosen, why := map[string]gridConfig{}, []string{}
		for _, g := range groups {
			c, w := r.choose(sets, g)
			chosen[g] = c
			if w != "" {
				why = append(why, w)
			}
		}
		row, hand := scoreRow(judged, chosen)
		fmt.Println(r.name + row + fmt.Sprintf("\t%.4f\t%s", hand, strings.Join(why, " ")))
	}
}

// splitGroups returns the vault groups of sets (a set is named
// GROUP_NAME), in order of appearance, and the judged sets among them
// (self-supervised sets are named GROUP_sKIND).
func splitGroups(sets []*set) (groups []string, judged []*set) {
	seen := map[string]bool{}
	for _, s := range sets {
		g, n, _ := strings.Cut(s.name, "_")
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
		if !strings.HasPrefix(n, "s") {
			judged = append(judged, s)
		}
	}
	return groups, judged
}

// scoreRow scores every judged set under its group's chosen weights: the
// tab-led nDCG@10 cells, and their sum over the hand-written sets (those
// not named GROUP_vl…).
func scoreRow(judged []*set, chosen map[string]gridConfig) (row string, hand float64) {
	for _, s := range judged {
		g, n, _ := strings.Cut(s.name, "_")
		v, _ := score(s, weighted(chosen[g].w))
		row += fmt.Sprintf("\t%.4f", v)
		if !strings.HasPrefix(n, "vl") {
			hand += v
		}
	}
	return row, hand
}
