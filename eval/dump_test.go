package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// TestDumpListsReplaysTheDefault re-fuses every dumped query the way the
// engine does (weighted RRF, then the graph boost) and expects eval's own
// default ranking: the dump holds everything a replay needs.
func TestDumpListsReplaysTheDefault(t *testing.T) {
	ctx := context.Background()
	ds, eng := fullEngine(t, "../testdata/quality")
	var buf bytes.Buffer
	if err := DumpLists(ctx, eng, ds, &buf); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, eng, ds, Config{GraphBoost: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	weights := eng.Weights()
	seen := map[string]bool{}
	anchors := 0
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<26)
	n := 0
	for ; sc.Scan(); n++ {
		var d ListDump
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		if d.ID != ds.Queries[n].ID || len(d.Rel) == 0 {
			t.Fatalf("record %d: id %q with %d judgements, want %q", n, d.ID, len(d.Rel), ds.Queries[n].ID)
		}
		var lists []rankers.Ranked
		for _, sig := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings, rankers.SignalFeedback} {
			if len(d.Lists[sig]) > 0 {
				seen[sig] = true
			}
			if weights[sig] == 0 {
				continue
			}
			l := rankers.Ranked{Signal: sig}
			for _, c := range d.Lists[sig] {
				l.Candidates = append(l.Candidates, rankers.Candidate{Note: int(c[0]), Chunk: int(c[1]), Score: c[2]})
			}
			lists = append(lists, l)
		}
		for _, l := range d.Links {
			if !eng.Graph().Links(l[0], l[1]) {
				t.Fatalf("%s: dumped link %v is not in the graph", d.ID, l)
			}
		}
		links := dumpedLinks{out: d.OutDegree, to: map[[2]int]bool{}}
		for _, l := range d.Links {
			links.to[l] = true
		}
		anchors += checkAnchorLinks(t, eng, d, links.to)
		fused := graph.BoostOver(links, rankers.Fuse(lists, rankers.DefaultRRFK, weights), graph.DefaultBoost)
		var docs []string
		for _, f := range fused[:min(len(fused), Depth)] {
			docs = append(docs, d.Docs[f.Note])
		}
		if want := rep.Rankings[n].Docs; !slices.Equal(docs, want) {
			t.Fatalf("%s: replayed ranking %q…, eval's %q…", d.ID, docs[:min(5, len(docs))], want[:min(5, len(want))])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(ds.Queries) {
		t.Fatalf("%d records, want %d", n, len(ds.Queries))
	}
	if anchors == 0 {
		t.Error("no query has a dumped link whose text shares a query term")
	}
	for _, sig := range []string{rankers.SignalTFIDF, rankers.SignalBM25, rankers.SignalEmbeddings, rankers.SignalFeedback} {
		if !seen[sig] {
			t.Errorf("no query's dump lists %s", sig)
		}
	}
}

// dumpedLinks replays a dump's links for the boost (graph.LinkSource).
type dumpedLinks struct {
	out map[int]int
	to  map[[2]int]bool
}

func (d dumpedLinks) Links(from, to int) bool { return d.to[[2]int{from, to}] }
func (d dumpedLinks) OutDegree(from int) int  { return d.out[from] }

// checkAnchorLinks checks a record's anchor and alias links: each is one
// of its links, one of the linking note's links to the target has a text
// (display text for alias links) sharing an analysed query term, and an
// alias link is an anchor link. It returns the number of anchor links.
func checkAnchorLinks(t *testing.T, eng *search.Engine, d ListDump, listed map[[2]int]bool) int {
	t.Helper()
	an := analysis.New()
	terms := map[string]bool{}
	for _, q := range an.Terms(nil, d.Text, analysis.Query) {
		terms[q] = true
	}
	anchor := map[[2]int]bool{}
	for _, l := range d.AnchorLinks {
		anchor[l] = true
	}
	check := func(l [2]int, alias bool) {
		if !listed[l] {
			t.Fatalf("%s: anchor link %v is not among the links", d.ID, l)
		}
		for _, e := range eng.Graph().Outbound(l[0]) {
			link := eng.Snapshot().Notes[l[0]].Links[e.Link]
			text := link.Alias
			if text == "" && !alias {
				text = link.Target + " " + link.Heading
			}
			if e.To == l[1] && sharesTerm(an, text, terms) {
				return
			}
		}
		t.Fatalf("%s: no link %v has a text sharing a term of %q (alias %v)", d.ID, l, d.Text, alias)
	}
	for _, l := range d.AnchorLinks {
		check(l, false)
	}
	for _, l := range d.AliasLinks {
		if !anchor[l] {
			t.Fatalf("%s: alias link %v is not an anchor link", d.ID, l)
		}
		check(l, true)
	}
	return len(d.AnchorLinks)
}
