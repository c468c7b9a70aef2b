// Command fusionlab re-fuses the signal lists that `enquire-mcp eval
// --dump-lists` wrote, so that a fusion idea can be measured on every
// tuning set in seconds instead of re-running the searches. Its "default"
// experiment must reproduce eval's default row (nDCG@10 to four decimals):
// that is the check that the replay (RRF, feedback list, graph boost) is
// faithful.
//
// The lists come from the engine as eval runs it: dump with --no-self-tune
// so that they are those of the default weights that "default" replays
// (on a vault whose links or headings choose other weights, the feedback
// list would otherwise come from the chosen weights' first pass).
//
//	enquire-mcp eval DATASET --no-self-tune --dump-lists eb.jsonl [--embedding-model vault]
//	go run ./bench/fusionlab -sets eb=eb.jsonl,hen=hen.jsonl -exp default
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/eval"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// query is one dumped query with its lists decoded.
type query struct {
	eval.ListDump
	lists map[string]rankers.Ranked
	links map[int]map[int]bool
	// anchor and alias hold the links whose text shares a query term
	// (all of them, or those with a display text).
	anchor, alias map[[2]int]bool
	terms         int // analysed query terms
}

// set is one dataset's dumped queries.
type set struct {
	name string
	qs   []*query
}

func main() {
	sets := flag.String("sets", "", "comma-separated NAME=FILE dumps")
	sources := flag.String("sources", "", "comma-separated NAME=FILE sources.tsv (bench/selfq): also score set NAME+\"x\" without each query's source note")
	exp := flag.String("exp", "default", "experiment: "+strings.Join(experimentNames(), ", "))
	flag.Parse()
	var all []*set
	for _, kv := range strings.Split(*sets, ",") {
		name, file, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintln(os.Stderr, "-sets wants NAME=FILE")
			os.Exit(2)
		}
		s, err := load(name, file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		all = append(all, s)
		if f := sourceFile(*sources, name); f != "" {
			x, err := withoutSources(s, f)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			all = append(all, x)
		}
	}
	run, ok := experiments()[*exp]
	if !ok {
		fmt.Fprintln(os.Stderr, "unknown experiment", *exp)
		os.Exit(2)
	}
	run(all)
}

// sourceFile is the sources file given for set name, "" if none.
func sourceFile(sources, name string) string {
	for _, kv := range strings.Split(sources, ",") {
		if n, f, ok := strings.Cut(kv, "="); ok && n == name {
			return f
		}
	}
	return ""
}

func experimentNames() []string {
	var out []string
	for k := range experiments() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func load(name, file string) (*set, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	an := analysis.New()
	s := &set{name: name}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		q := &query{lists: map[string]rankers.Ranked{}, links: map[int]map[int]bool{},
			anchor: map[[2]int]bool{}, alias: map[[2]int]bool{}}
		if err := json.Unmarshal(sc.Bytes(), &q.ListDump); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for sig, l := range q.Lists {
			r := rankers.Ranked{Signal: sig}
			for _, c := range l {
				r.Candidates = append(r.Candidates, rankers.Candidate{Note: int(c[0]), Chunk: int(c[1]), Score: c[2]})
			}
			q.lists[sig] = r
		}
		for _, l := range q.Links {
			if q.links[l[0]] == nil {
				q.links[l[0]] = map[int]bool{}
			}
			q.links[l[0]][l[1]] = true
		}
		for _, l := range q.AnchorLinks {
			q.anchor[l] = true
		}
		for _, l := range q.AliasLinks {
			q.alias[l] = true
		}
		q.terms = len(an.Terms(nil, q.Text, analysis.Query))
		s.qs = append(s.qs, q)
	}
	return s, sc.Err()
}

// fuser ranks one query's candidates (before the graph boost).
type fuser func(q *query) []rankers.Fused

// score is one set's mean nDCG@10 under f with the graph boost, and the
// per-category means.
func score(s *set, f fuser) (float64, map[string]float64) {
	var sum float64
	cat, n := map[string]float64{}, map[string]int{}
	for _, q := range s.qs {
		m := ndcg(q, afterBoost(q, boost(q, f(q))))
		sum += m
		if q.Category != "" {
			cat[q.Category] += m
			n[q.Category]++
		}
	}
	for c := range cat {
		cat[c] /= float64(n[c])
	}
	return sum / float64(len(s.qs)), cat
}

func ndcg(q *query, fused []rankers.Fused) float64 {
	var docs []string
	for _, f := range fused[:min(len(fused), eval.Depth)] {
		docs = append(docs, q.Docs[f.Note])
	}
	return eval.Score(docs, q.Rel).NDCG10
}

// rrf fuses the named signals with weights (RRF k 60), as the engine does.
func rrf(q *query, weights map[string]float64) []rankers.Fused {
	var lists []rankers.Ranked
	for _, sig := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings, rankers.SignalFeedback} {
		if w, ok := weights[sig]; ok && w != 0 {
			if l, ok := q.lists[sig]; ok {
				lists = append(lists, l)
			}
		}
	}
	return rankers.Fuse(lists, rankers.DefaultRRFK, weights)
}
