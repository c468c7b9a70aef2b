package main

import (
	"fmt"
	"os"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// expShow prints the default's top 5 before and after the boost for the
// query in $Q.
func expShow(sets []*set) {
	for _, s := range sets {
		for _, q := range s.qs {
			if q.Text != os.Getenv("Q") {
				continue
			}
			for _, sig := range linSignals {
				fmt.Println(sig)
				for _, c := range q.lists[sig].Candidates[:min(6, len(q.lists[sig].Candidates))] {
					fmt.Printf("  %-50s rel=%d chunk=%d %.4f\n", q.Docs[c.Note], q.Rel[q.Docs[c.Note]], c.Chunk, c.Score)
				}
			}
			if os.Getenv("LISTS") != "" {
				continue
			}
			for _, w := range []map[string]float64{defaultWeights(), {rankers.SignalTFIDF: 1}} {
				f := rrf(q, w)
				for name, l := range map[string][]rankers.Fused{"fused": f, "boosted": boost(q, f)} {
					fmt.Println(name, w)
					for _, x := range l[:5] {
						fmt.Printf("  %-40s rel=%d %.5f %v\n", q.Docs[x.Note], q.Rel[q.Docs[x.Note]], x.Score, x.Signals)
					}
				}
			}
		}
	}
}
