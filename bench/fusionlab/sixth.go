package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// withoutSources derives from s the set "<name>x" whose queries lose, from
// every list, the note their text was taken from (sources.tsv of
// bench/selfq: query id, corpus id): the link query without its linking
// note.
func withoutSources(s *set, file string) (*set, error) {
	src, err := readSources(file)
	if err != nil {
		return nil, err
	}
	out := &set{name: s.name + "x"}
	for _, q := range s.qs {
		c := *q
		c.lists = map[string]rankers.Ranked{}
		for sig, l := range q.lists {
			r := rankers.Ranked{Signal: sig}
			for _, cand := range l.Candidates {
				if q.Docs[cand.Note] != src[q.ID] {
					r.Candidates = append(r.Candidates, cand)
				}
			}
			c.lists[sig] = r
		}
		out.qs = append(out.qs, &c)
	}
	return out, nil
}

func readSources(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, doc, ok := strings.Cut(sc.Text(), "\t")
		if ok {
			m[id] = doc
		}
	}
	return m, sc.Err()
}

// gridConfig is one candidate weighting of the sixth pass's grid.
type gridConfig struct {
	name string
	w    map[string]float64
}

// sixthGrid is the grid a vault's self-supervised queries choose from:
// BM25:TF-IDF ratios at a constant lexical total of 3 (the default's
// 2 + 1), each with the feedback weight 0, 0.5 (default) and 1.
func sixthGrid() []gridConfig {
	ratios := []struct {
		name   string
		bm, tf float64
	}{{"bm", 3, 0}, {"4:1", 2.4, 0.6}, {"2:1", 2, 1}, {"1:1", 1.5, 1.5}, {"1:2", 1, 2}, {"1:4", 0.6, 2.4}, {"tf", 0, 3}}
	var out []gridConfig
	for _, fb := range []float64{0.5, 0, 1} {
		for _, r := range ratios {
			out = append(out, gridConfig{fmt.Sprintf("%s/fb%g", r.name, fb), map[string]float64{
				rankers.SignalBM25: r.bm, rankers.SignalTFIDF: r.tf, rankers.SignalFeedback: fb}})
		}
	}
	return out
}

// expSixth prints every grid configuration's nDCG@10 on every set (one
// row per configuration), plus the single signals.
func expSixth(sets []*set) {
	var names []string
	var fusers []fuser
	for _, g := range sixthGrid() {
		names = append(names, g.name)
		fusers = append(fusers, weighted(g.w))
	}
	names = append(names, "BM25", "TFIDF")
	fusers = append(fusers, weighted(map[string]float64{rankers.SignalBM25: 1}), weighted(map[string]float64{rankers.SignalTFIDF: 1}))
	table(sets, names, fusers)
}
