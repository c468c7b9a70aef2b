package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// ListDump is one query's record in a dump of signal lists: everything an
// offline fusion experiment needs to re-fuse the query without the engine
// (TestDumpListsReplaysTheDefault is such a replay).
type ListDump struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	Category string         `json:"category,omitempty"`
	Rel      map[string]int `json:"rel"`
	// Lists holds each signal's candidates as [note, chunk, score].
	Lists map[string][][3]float64 `json:"lists"`
	// Docs maps every listed note to its corpus id; OutDegree gives the
	// note's distinct link targets and Links its links to other listed
	// notes (the graph boost's inputs).
	Docs      map[int]string `json:"docs"`
	OutDegree map[int]int    `json:"out_degree"`
	Links     [][2]int       `json:"links"`
	// AnchorLinks are the Links one of whose link texts (the display text
	// after '|', else the written target) shares an analysed term with the
	// query; AliasLinks those where that text is a display text.
	AnchorLinks [][2]int `json:"anchor_links,omitempty"`
	AliasLinks  [][2]int `json:"alias_links,omitempty"`
}

// DumpLists writes one ListDump per query as JSON lines: each signal's
// ranked list as a default search would compute it (note granularity,
// limit Depth), with the feedback list drawn from the default first pass.
func DumpLists(ctx context.Context, eng *search.Engine, ds *Dataset, w io.Writer) error {
	enc := json.NewEncoder(w)
	g := eng.Graph()
	an := analysis.New()
	for _, q := range ds.Queries {
		lists, err := eng.SignalLists(ctx, search.Request{Query: q.Text, Limit: Depth, NoSnippets: true})
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		d := ListDump{ID: q.ID, Text: q.Text, Category: q.Category, Rel: ds.Qrels[q.ID],
			Lists: map[string][][3]float64{}, Docs: map[int]string{}, OutDegree: map[int]int{}}
		for _, l := range lists {
			for _, c := range l.Candidates {
				d.Lists[l.Signal] = append(d.Lists[l.Signal], [3]float64{float64(c.Note), float64(c.Chunk), c.Score})
				if _, ok := d.Docs[c.Note]; !ok {
					d.Docs[c.Note] = ds.DocID(eng.Snapshot().Notes[c.Note].Path)
					d.OutDegree[c.Note] = g.OutDegree(c.Note)
				}
			}
		}
		notes := make([]int, 0, len(d.Docs))
		for n := range d.Docs {
			notes = append(notes, n)
		}
		slices.Sort(notes)
		qterms := map[string]bool{}
		for _, t := range an.Terms(nil, q.Text, analysis.Query) {
			qterms[t] = true
		}
		for _, from := range notes {
			seen, anchor, alias := map[int]bool{}, map[int]bool{}, map[int]bool{}
			for _, e := range g.Outbound(from) {
				if _, listed := d.Docs[e.To]; !listed || e.To == from {
					continue
				}
				if !seen[e.To] {
					seen[e.To] = true
					d.Links = append(d.Links, [2]int{from, e.To})
				}
				l := eng.Snapshot().Notes[from].Links[e.Link]
				text := l.Alias
				if text == "" {
					text = l.Target + " " + l.Heading
				}
				if sharesTerm(an, text, qterms) {
					if !anchor[e.To] {
						anchor[e.To] = true
						d.AnchorLinks = append(d.AnchorLinks, [2]int{from, e.To})
					}
					if l.Alias != "" && !alias[e.To] {
						alias[e.To] = true
						d.AliasLinks = append(d.AliasLinks, [2]int{from, e.To})
					}
				}
			}
		}
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("dump lists: %w", err)
		}
	}
	return nil
}

// sharesTerm reports whether text has an analysed term in terms.
func sharesTerm(an *analysis.Analyzer, text string, terms map[string]bool) bool {
	for _, t := range an.Terms(nil, text, analysis.Query) {
		if terms[t] {
			return true
		}
	}
	return false
}
