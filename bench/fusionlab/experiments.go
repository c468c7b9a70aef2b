package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// experiments lists every experiment by the name -exp takes.
func experiments() map[string]func([]*set) {
	return map[string]func([]*set){
		"anchor":      expAnchor,
		"boost":       expBoost,
		"default":     expDefault,
		"densealone":  expDenseAlone,
		"denseconf":   expDenseConfident,
		"densepool":   expDensePool,
		"densestrip":  expDenseStrip,
		"diag":        expDiag,
		"fbagree":     expFeedbackAgree,
		"fbterms":     expFeedbackByTerms,
		"fifth":       expFifth,
		"fifthdiag":   expFifthDiag,
		"frozen":      expFrozen,
		"gap":         expGap,
		"linear":      expLinear,
		"linearfloor": expLinearFloor,
		"mix":         expMix,
		"pinafter":    expPinAfter,
		"pindiff":     expPinDiff,
		"protect":     expProtect,
		"rrfk":        expRRFK,
		"rule":        expRule,
		"show":        expShow,
		"sixth":       expSixth,
		"sixthrule":   expSixthRule,
		"sixthfrozen": expSixthFrozen,
	}
}

func defaultWeights() map[string]float64 {
	return map[string]float64{rankers.SignalBM25: rankers.WeightBM25, rankers.SignalTFIDF: rankers.WeightTFIDF,
		rankers.SignalFeedback: rankers.WeightFeedback, rankers.SignalEmbeddings: 0}
}

// table prints one row per named fuser: each set's nDCG@10 and the sum.
func table(sets []*set, names []string, fusers []fuser) {
	head := "config"
	for _, s := range sets {
		head += "\t" + s.name
	}
	fmt.Println(head + "\tsum")
	for i, f := range fusers {
		row, sum := names[i], 0.0
		for _, s := range sets {
			v, _ := score(s, f)
			sum += v
			row += fmt.Sprintf("\t%.4f", v)
		}
		fmt.Println(row + fmt.Sprintf("\t%.4f", sum))
	}
}

func weighted(w map[string]float64) fuser { return func(q *query) []rankers.Fused { return rrf(q, w) } }

func expDefault(sets []*set) {
	single := func(sig string) fuser { return weighted(map[string]float64{sig: 1}) }
	table(sets, []string{"default", "bm25", "tfidf", "embeddings", "feedback"},
		[]fuser{weighted(defaultWeights()), single("bm25"), single("tfidf"), single("embeddings"), single("feedback")})
}

// expFeedbackByTerms buckets queries by analysed term count and compares
// the default with and without the feedback vote, then tries feedback
// weights that fall with the term count.
func expFeedbackByTerms(sets []*set) {
	noFB := defaultWeights()
	noFB[rankers.SignalFeedback] = 0
	for _, s := range sets {
		type agg struct {
			n        int
			with, wo float64
		}
		b := map[int]*agg{}
		for _, q := range s.qs {
			k := min(q.terms, 12)
			if b[k] == nil {
				b[k] = &agg{}
			}
			b[k].n++
			b[k].with += ndcg(q, boost(q, rrf(q, defaultWeights())))
			b[k].wo += ndcg(q, boost(q, rrf(q, noFB)))
		}
		fmt.Printf("%s:", s.name)
		for k := 0; k <= 12; k++ {
			if a := b[k]; a != nil {
				fmt.Printf(" %d:n%d %+.3f", k, a.n, (a.with-a.wo)/float64(a.n))
			}
		}
		fmt.Println()
	}
	var names []string
	var fs []fuser
	names = append(names, "default", "no feedback")
	fs = append(fs, weighted(defaultWeights()), weighted(noFB))
	for _, maxT := range []int{2, 3, 4, 5, 6, 8, 10} {
		names = append(names, fmt.Sprintf("feedback only ≤%d terms", maxT))
		fs = append(fs, func(q *query) []rankers.Fused {
			if q.terms <= maxT {
				return rrf(q, defaultWeights())
			}
			return rrf(q, noFB)
		})
	}
	for _, t0 := range []float64{2, 3, 4, 6, 8} {
		names = append(names, fmt.Sprintf("w=0.5·min(1,%g/terms)", t0))
		fs = append(fs, func(q *query) []rankers.Fused {
			w := defaultWeights()
			if q.terms > 0 {
				w[rankers.SignalFeedback] = 0.5 * min(1, t0/float64(q.terms))
			}
			return rrf(q, w)
		})
	}
	for _, base := range []float64{0.75, 1} {
		for _, t0 := range []float64{2, 3, 4} {
			names = append(names, fmt.Sprintf("w=%g·min(1,%g/terms)", base, t0))
			fs = append(fs, func(q *query) []rankers.Fused {
				w := defaultWeights()
				w[rankers.SignalFeedback] = base * min(1, t0/float64(max(q.terms, 1)))
				return rrf(q, w)
			})
		}
	}
	table(sets, names, fs)
}
