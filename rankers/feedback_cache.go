package rankers

import (
	"slices"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// feedbackCacheNotes bounds the notes whose term counts feedback keeps
// (the cache is emptied when full): about 7 KB each for a 4 KB note.
const feedbackCacheNotes = 1024

// noteTerms are the distinct analysed terms of a feedback note's title and
// (bounded) body, sorted, with their counts.
type noteTerms struct {
	terms  []string
	counts []float64
}

// noteTermCache keeps noteTerms by note path and content hash, so that a
// note that is a feedback note again (the same first hits for related
// queries) is not analysed again. The terms do not depend on the index's
// statistics, so one cache serves every Update of a TFIDF.
type noteTermCache struct {
	mu sync.Mutex
	m  map[string]*noteTerms
	// scratches is feedback's reusable working memory (*feedbackScratch),
	// kept here because, like the terms, it outlives every Update.
	scratches sync.Pool
}

func newNoteTermCache() *noteTermCache { return &noteTermCache{m: map[string]*noteTerms{}} }

// termsOf returns n's noteTerms from the cache c (nil: none) or analyses it.
func (c *noteTermCache) termsOf(an *analysis.Analyzer, n *vault.Note) *noteTerms {
	key := n.Path + "\x00" + n.Hash
	if c != nil && n.Hash != "" {
		c.mu.Lock()
		nt, ok := c.m[key]
		c.mu.Unlock()
		if ok {
			return nt
		}
	}
	nt := analyseNote(an, n)
	if c != nil && n.Hash != "" {
		c.mu.Lock()
		if len(c.m) >= feedbackCacheNotes {
			clear(c.m)
		}
		c.m[key] = nt
		c.mu.Unlock()
	}
	return nt
}

// analyseNote counts the terms of n's title and first feedbackTextBytes of
// body.
func analyseNote(an *analysis.Analyzer, n *vault.Note) *noteTerms {
	body := n.Body
	if len(body) > feedbackTextBytes {
		body = body[:feedbackTextBytes]
	}
	tf := map[string]float64{}
	an.Each(n.Title+"\n"+body, analysis.Index, func(term string, _, _ int) { tf[term]++ })
	nt := &noteTerms{terms: make([]string, 0, len(tf))}
	for term := range tf {
		nt.terms = append(nt.terms, term)
	}
	slices.Sort(nt.terms)
	nt.counts = make([]float64, len(nt.terms))
	for i, term := range nt.terms {
		nt.counts[i] = tf[term]
	}
	return nt
}

// feedbackScratch is the working memory of one Feedback call: the term
// sums, the expanded query and the heaviest terms. Reused, so that a
// search does not allocate (and zero) a thousand-term map every time.
type feedbackScratch struct {
	cent    map[string]float64
	w       map[uint32]float64
	unit    unitScratch
	top     []termWeight
	ids     []uint32
	weights []float32
}

// scratch returns an empty feedbackScratch, reused when c has one.
func (c *noteTermCache) scratch() *feedbackScratch {
	if c != nil {
		if sc, ok := c.scratches.Get().(*feedbackScratch); ok {
			return sc
		}
	}
	return &feedbackScratch{cent: make(map[string]float64, feedbackCentroidTerms), w: map[uint32]float64{}}
}

// release empties sc and keeps it for the next Feedback call.
func (c *noteTermCache) release(sc *feedbackScratch) {
	if c == nil {
		return
	}
	clear(sc.cent)
	clear(sc.w)
	clear(sc.top) // drop the term strings
	clear(sc.unit.terms[:cap(sc.unit.terms)])
	c.scratches.Put(sc)
}
