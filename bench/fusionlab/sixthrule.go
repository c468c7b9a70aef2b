package main

import (
	"fmt"
	"math"
	"strings"
)

// selfRule chooses a vault's weights from its self-supervised sets: pool
// the sets of the given kinds, and if they hold at least min queries, take
// the grid's best configuration when it beats the default by margin.
type selfRule struct {
	name   string
	kinds  []string // set-name suffixes after "_s": "l", "lx", "h", "a"
	min    int
	grid   []gridConfig
	margin float64
	// minT, when > 0, replaces margin: the best configuration must beat
	// the default by a paired t statistic ≥ minT over the pooled queries.
	minT float64
}

// pairedT is the paired t statistic of a − b over the queries of s.
func pairedT(s *set, a, b fuser) float64 {
	var d []float64
	for _, q := range s.qs {
		d = append(d, ndcg(q, afterBoost(q, boost(q, a(q))))-ndcg(q, afterBoost(q, boost(q, b(q)))))
	}
	var mean, v float64
	for _, x := range d {
		mean += x
	}
	mean /= float64(len(d))
	for _, x := range d {
		v += (x - mean) * (x - mean)
	}
	switch {
	case mean == 0:
		return 0
	case v == 0:
		return math.Inf(int(math.Copysign(1, mean)))
	}
	return mean / math.Sqrt(v/float64(len(d)-1)/float64(len(d)))
}

// ratioGrid is sixthGrid's ratios at one feedback weight.
func ratioGrid(fb float64, names ...string) []gridConfig {
	var out []gridConfig
	for _, g := range sixthGrid() {
		for _, n := range names {
			if g.name == fmt.Sprintf("%s/fb%g", n, fb) {
				out = append(out, g)
			}
		}
	}
	return out
}

// expSixthRule applies candidate rules. Sets are named GROUP_sKIND (self
// sets, KIND l, lx, h, a) or GROUP_NAME (sets the rule is judged on).
func expSixthRule(sets []*set) {
	all := sixthGrid()
	rules := []selfRule{}
	for _, kinds := range [][]string{{"l"}, {"lx"}, {"h"}, {"a"}, {"l", "a"}, {"lx", "a"}, {"l", "h", "a"}} {
		for _, g := range []struct {
			name string
			grid []gridConfig
		}{{"ratio3", ratioGrid(0.5, "2:1", "1:1", "1:2")}, {"ratio5", ratioGrid(0.5, "4:1", "2:1", "1:1", "1:2", "1:4")},
			{"ratio7", ratioGrid(0.5, "bm", "4:1", "2:1", "1:1", "1:2", "1:4", "tf")}, {"full", all}} {
			for _, m := range []float64{0.005} {
				for _, min := range []int{50} {
					rules = append(rules, selfRule{fmt.Sprintf("%s/%s/m%g/n%d", strings.Join(kinds, "+"), g.name, m, min), kinds, min, g.grid, m, 0})
				}
			}
			for _, t := range []float64{1.65, 2} {
				rules = append(rules, selfRule{fmt.Sprintf("%s/%s/t%g/n20", strings.Join(kinds, "+"), g.name, t), kinds, 20, g.grid, 0, t})
			}
		}
	}
	groups, judged := splitGroups(sets)
	head := "rule\tchoices"
	for _, s := range judged {
		head += "\t" + s.name
	}
	fmt.Println(head + "\thandsum")
	def := defaultWeights()
	for _, r := range rules {
		chosen := map[string]gridConfig{}
		desc := ""
		for _, g := range groups {
			chosen[g] = gridConfig{"def", def}
			var pool []*query
			for _, s := range sets {
				for _, k := range r.kinds {
					if s.name == g+"_s"+k {
						pool = append(pool, s.qs...)
					}
				}
			}
			if len(pool) < r.min {
				continue
			}
			ps := &set{qs: pool}
			base, _ := score(ps, weighted(def))
			best, bestV := gridConfig{"def", def}, base
			for _, c := range r.grid {
				if v, _ := score(ps, weighted(c.w)); v > bestV {
					best, bestV = c, v
				}
			}
			if best.name == "def" {
				continue
			}
			t := pairedT(ps, weighted(best.w), weighted(def))
			if r.minT > 0 && t >= r.minT || r.minT == 0 && bestV-base >= r.margin {
				chosen[g] = best
				desc += fmt.Sprintf("%s=%s(+%.3f,t%.1f) ", g, best.name, bestV-base, t)
			} else {
				desc += fmt.Sprintf("[%s=%s(+%.3f,t%.1f)] ", g, best.name, bestV-base, t)
			}
		}
		row, hand := scoreRow(judged, chosen)
		fmt.Println(r.name + "\t" + strings.TrimSpace(desc) + row + fmt.Sprintf("\t%.4f", hand))
	}
}
