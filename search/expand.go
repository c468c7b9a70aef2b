package search

import (
	"sync"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Ways a related note is connected to the hit it came from.
const (
	ViaLinksTo    = "links_to"
	ViaLinkedFrom = "linked_from"
	ViaSharedTag  = "shared_tag:#" // followed by the tag
)

// Related is a note near a hit that is not itself a hit.
type Related struct {
	Note        int
	Path, Title string
	// From is the path of the hit it came from; Via is how (ViaLinksTo,
	// ViaLinkedFrom or ViaSharedTag plus the tag).
	From, Via string
}

// rareTags maps each rare tag (see rankers.RelatedTagMaxNotes) to the
// notes carrying it, built on first use per engine.
type rareTags struct {
	once  sync.Once
	notes map[string][]int // folded tag → notes, ascending
}

func (t *rareTags) get(snap *vault.Snapshot) map[string][]int {
	t.once.Do(func() {
		all := map[string][]int{}
		for i, n := range snap.Notes {
			for _, tag := range n.Tags {
				k := vault.FoldTag(tag)
				all[k] = append(all[k], i)
			}
		}
		for k, ns := range all {
			if len(ns) > rankers.RelatedTagMaxNotes {
				delete(all, k)
			}
		}
		t.notes = all
	})
	return t.notes
}

// addRelated fills res.Related when the request asks to expand: for the
// top rankers.RelatedFromHits hits, in hit order, the notes each links to,
// then those linking to it, then those sharing a rare tag with it; the
// hits take turns (one candidate each per round) so that the best hit's
// neighbourhood does not crowd out the others. Notes already in the hits,
// or excluded by the request's filters, are skipped; at most
// rankers.RelatedMax are kept. The hits are unchanged.
func (e *Engine) addRelated(req Request, allow func(int) bool, res *Result) {
	if !req.Expand {
		return
	}
	res.Related = []Related{}
	seen := map[int]bool{}
	for _, h := range res.Hits {
		seen[h.Note] = true
	}
	hits := res.Hits[:min(len(res.Hits), rankers.RelatedFromHits)]
	queues := make([][]Related, len(hits))
	for i, h := range hits {
		queues[i] = e.neighbours(h)
	}
	for round := 0; len(res.Related) < rankers.RelatedMax; round++ {
		more := false
		for _, q := range queues {
			if round >= len(q) || len(res.Related) >= rankers.RelatedMax {
				continue
			}
			more = true
			if r := q[round]; !seen[r.Note] && (allow == nil || allow(r.Note)) {
				seen[r.Note] = true
				res.Related = append(res.Related, r)
			}
		}
		if !more {
			return
		}
	}
}

// neighbours lists a hit's linked and rare-tag notes, each once, in the
// order addRelated takes them.
func (e *Engine) neighbours(h Hit) []Related {
	var out []Related
	listed := map[int]bool{h.Note: true}
	add := func(note int, via string) {
		if !listed[note] {
			listed[note] = true
			n := e.snap.Notes[note]
			out = append(out, Related{Note: note, Path: n.Path, Title: n.Title, From: h.Path, Via: via})
		}
	}
	for _, ed := range e.graph.Outbound(h.Note) {
		add(ed.To, ViaLinksTo)
	}
	for _, ed := range e.graph.Backlinks(h.Note) {
		add(ed.From, ViaLinkedFrom)
	}
	rare := e.tags.get(e.snap)
	for _, tag := range e.snap.Notes[h.Note].Tags {
		for _, o := range rare[vault.FoldTag(tag)] {
			add(o, ViaSharedTag+tag)
		}
	}
	return out
}
