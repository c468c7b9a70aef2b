package main

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// expDiag lists, per set, the queries where the best single lexical
// signal beats the default, with the first relevant note's rank in each
// signal's list.
func expDiag(sets []*set) {
	for _, s := range sets {
		var wins, losses int
		for _, q := range s.qs {
			d := ndcg(q, boost(q, rrf(q, defaultWeights())))
			t := ndcg(q, boost(q, rrf(q, map[string]float64{rankers.SignalTFIDF: 1})))
			b := ndcg(q, boost(q, rrf(q, map[string]float64{rankers.SignalBM25: 1})))
			if t > d+1e-9 {
				losses++
			} else if t < d-1e-9 {
				wins++
			}
			if t <= d+1e-9 && b <= d+1e-9 {
				continue
			}
			row := fmt.Sprintf("%s %-40.40q def %.2f tf %.2f bm %.2f |", s.name, q.Text, d, t, b)
			for _, sig := range linSignals {
				row += fmt.Sprintf(" %s:%s", sig[:2], relRanks(q, sig))
			}
			fmt.Println(row)
		}
		fmt.Printf("%s: default beats tfidf on %d, loses on %d\n", s.name, wins, losses)
	}
}

func relRanks(q *query, sig string) string {
	out := ""
	for r, c := range q.lists[sig].Candidates {
		if q.Rel[q.Docs[c.Note]] > 0 {
			out += fmt.Sprintf("%d,", r+1)
			if len(out) > 8 {
				break
			}
		}
		if r > 50 {
			break
		}
	}
	if out == "" {
		return "-"
	}
	return out
}
