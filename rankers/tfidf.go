package rankers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// FieldWeights scale how much one occurrence of a term counts in each part
// of a note: a word in the title says more about the note than one in
// passing.
type FieldWeights struct {
	Title, Aliases, Headings, Tags, Properties, Body float32
}

// DefaultFieldWeights are the weights obsidian_search uses.
var DefaultFieldWeights = FieldWeights{Title: 3, Aliases: 3, Headings: 2, Tags: 2, Properties: 1, Body: 1}

// TFIDF is the always-available lexical signal: sublinear tf, smoothed idf,
// vectors divided by their pivoted L2 norm (see pivoted), scored as a dot
// product through an inverted index. It indexes notes (all fields) and
// chunks (chunk text plus its title and heading path) with one vocabulary
// and one idf. A TFIDF is immutable and
// safe for concurrent use.
type TFIDF struct {
	an        *analysis.Analyzer
	dict      map[string]uint32
	idf       []float32
	notes     [][]posting // term → notes
	chunks    [][]posting // term → global chunk ids
	chunkNote []int32     // global chunk id → note
	chunkBase []int32     // note → its first global chunk id
	numNotes  int
	pool      sync.Pool // *accumulator
}

type posting struct {
	doc uint32
	w   float32
}

type termCount struct {
	term string
	tf   float32
}

type docTerms struct {
	note   []termCount
	chunks [][]termCount
}

// NewTFIDF indexes notes; chunks[i] are the chunks of notes[i].
func NewTFIDF(ctx context.Context, an *analysis.Analyzer, notes []*vault.Note, chunks [][]chunk.Chunk, fw FieldWeights) (*TFIDF, error) {
	if len(chunks) != len(notes) {
		return nil, fmt.Errorf("tfidf: %d notes but %d chunk lists", len(notes), len(chunks))
	}
	docs, err := countAll(ctx, an, notes, chunks, fw)
	if err != nil {
		return nil, err
	}
	t := &TFIDF{an: an, dict: make(map[string]uint32), numNotes: len(notes)}
	t.chunkBase = make([]int32, len(notes)+1)
	for i, cs := range chunks {
		t.chunkBase[i+1] = t.chunkBase[i] + int32(len(cs))
		for range cs {
			t.chunkNote = append(t.chunkNote, int32(i))
		}
	}
	var df []int32
	ids := func(tcs []termCount, countDF bool) []idCount {
		out := make([]idCount, len(tcs))
		for j, tc := range tcs {
			id, ok := t.dict[tc.term]
			if !ok {
				id = uint32(len(df))
				t.dict[tc.term] = id
				df = append(df, 0)
			}
			if countDF {
				df[id]++
			}
			out[j] = idCount{id, tc.tf}
		}
		return out
	}
	noteVecs := make([][]idCount, len(docs))
	chunkVecs := make([][]idCount, 0, len(t.chunkNote))
	for i, d := range docs {
		noteVecs[i] = ids(d.note, true)
		for _, c := range d.chunks {
			chunkVecs = append(chunkVecs, ids(c, false))
		}
	}
	t.idf = make([]float32, len(df))
	for id, n := range df {
		t.idf[id] = float32(math.Log(float64(1+len(notes))/float64(1+n)) + 1)
	}
	t.notes = t.invert(noteVecs)
	t.chunks = t.invert(chunkVecs)
	t.pool.New = func() any { return &accumulator{} }
	return t, nil
}

type idCount struct {
	id uint32
	tf float32
}

// invert turns tf vectors into tf-idf postings divided by the pivoted
// norm of their document (see pivoted).
func (t *TFIDF) invert(vecs [][]idCount) [][]posting {
	counts := make([]int32, len(t.idf))
	for _, v := range vecs {
		for _, e := range v {
			counts[e.id]++
		}
	}
	post := make([][]posting, len(t.idf))
	for id, c := range counts {
		post[id] = make([]posting, 0, c)
	}
	norms := make([]float64, len(vecs))
	for doc, v := range vecs {
		var norm float64
		for j, e := range v {
			w := sublinear(e.tf) * t.idf[e.id]
			v[j].tf = w
			norm += float64(w) * float64(w)
		}
		norms[doc] = math.Sqrt(norm)
	}
	pivot := meanPositive(norms)
	for doc, v := range vecs {
		if norms[doc] == 0 {
			continue // nothing weighted (every field weight 0): no postings
		}
		inv := float32(1 / pivoted(norms[doc], pivot, PivotSlope))
		for _, e := range v {
			post[e.id] = append(post[e.id], posting{uint32(doc), e.tf * inv})
		}
	}
	return post
}

func sublinear(tf float32) float32 {
	if tf <= 1 {
		return tf
	}
	return 1 + float32(math.Log(float64(tf)))
}

// countAll analyzes every note in parallel.
func countAll(ctx context.Context, an *analysis.Analyzer, notes []*vault.Note, chunks [][]chunk.Chunk, fw FieldWeights) ([]docTerms, error) {
	docs := make([]docTerms, len(notes))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := counter{an: an, fw: fw, note: map[string]float32{}, chunk: map[string]float32{}}
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(notes) {
					return
				}
				docs[i] = c.count(notes[i], chunks[i])
			}
		}()
	}
	wg.Wait()
	return docs, ctx.Err()
}

// counter accumulates term frequencies with reusable maps.
type counter struct {
	an          *analysis.Analyzer
	fw          FieldWeights
	note, chunk map[string]float32
}

func (c *counter) add(m map[string]float32, text string, w float32) {
	if w == 0 {
		return // a field weighted 0 is not indexed (nor counted in df)
	}
	c.an.Each(text, analysis.Index, func(term string, _, _ int) { m[term] += w })
}

func (c *counter) count(n *vault.Note, chs []chunk.Chunk) docTerms {
	props := Properties(n)
	headings := make([]string, len(n.Headings))
	for i, h := range n.Headings {
		headings[i] = h.Text
	}
	clear(c.note)
	c.context(c.note, n, headings, props)
	var d docTerms
	d.chunks = make([][]termCount, len(chs))
	ci := 0
	clear(c.chunk)
	flush := func() {
		c.context(c.chunk, n, chs[ci].Headings, props)
		d.chunks[ci] = toCounts(c.chunk)
		clear(c.chunk)
		ci++
	}
	c.an.Each(n.Body, analysis.Index, func(term string, start, _ int) {
		if c.fw.Body != 0 {
			c.note[term] += c.fw.Body
		}
		for ci+1 < len(chs) && start >= chs[ci+1].Start {
			flush()
		}
		c.chunk[term] += max(c.fw.Body, 1) // a chunk's text is its body even when notes weigh bodies 0
	})
	for ci < len(chs) {
		flush()
	}
	d.note = toCounts(c.note)
	return d
}

// context adds a note's weighted fields to m: title, aliases, tags,
// properties, and the given headings (all of them for the note, the
// heading path for a chunk). A chunk carries its note's context so that a
// one-chunk note scores the same as a chunk and as a note.
func (c *counter) context(m map[string]float32, n *vault.Note, headings, props []string) {
	c.add(m, n.Title, c.fw.Title)
	for _, a := range n.Aliases {
		c.add(m, a, c.fw.Aliases)
	}
	for _, h := range headings {
		c.add(m, h, c.fw.Headings)
	}
	for _, tag := range n.Tags {
		c.add(m, tag, c.fw.Tags)
	}
	for _, v := range props {
		c.add(m, v, c.fw.Properties)
	}
}

func toCounts(m map[string]float32) []termCount {
	out := make([]termCount, 0, len(m))
	for term, tf := range m {
		out = append(out, termCount{term, tf})
	}
	// Map order is random; sorting keeps term ids (and float sums)
	// identical from run to run.
	sort.Slice(out, func(i, j int) bool { return out[i].term < out[j].term })
	return out
}

// Properties returns the text of a note's frontmatter values other than
// title, aliases and tags (which are indexed as their own fields).
func Properties(n *vault.Note) []string {
	var out []string
	for k, v := range n.Frontmatter {
		// vault takes these keys case-insensitively ("Tags:" are tags).
		switch strings.ToLower(k) {
		case "title", "aliases", "alias", "tags", "tag":
			continue
		}
		out = appendValues(out, v)
	}
	sort.Strings(out)
	return out
}

func appendValues(out []string, v any) []string {
	switch x := v.(type) {
	case nil:
	case string:
		out = append(out, x)
	case []any:
		for _, e := range x {
			out = appendValues(out, e)
		}
	case map[string]any:
		for _, e := range x {
			out = appendValues(out, e)
		}
	default:
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// Name implements Ranker.
func (t *TFIDF) Name() string { return SignalTFIDF }

// IDF returns the idf of an analyzed term (0 if unknown).
func (t *TFIDF) IDF(term string) float64 {
	if id, ok := t.dict[term]; ok {
		return float64(t.idf[id])
	}
	return 0
}

// Rank scores chunks, or notes, by cosine similarity with the query. A
// note scores as the better of its own cosine and its best chunk's: a
// long note with one passage about the query is not diluted by the rest.
func (t *TFIDF) Rank(ctx context.Context, req Request) ([]Candidate, error) {
	ids, weights := t.queryVector(req.Query)
	if len(ids) == 0 || req.Limit <= 0 {
		return nil, nil
	}
	chunks := t.pool.Get().(*accumulator)
	defer t.pool.Put(chunks)
	chunks.reset(len(t.chunkNote))
	for i, id := range ids {
		chunks.add(t.chunks[id], weights[i])
	}
	if req.Block {
		cands := make([]Candidate, 0, len(chunks.touched))
		for _, doc := range chunks.touched {
			note := int(t.chunkNote[doc])
			if req.Allow == nil || req.Allow(note) {
				cands = append(cands, Candidate{Note: note, Chunk: int(doc - uint32(t.chunkBase[note])), Score: float64(chunks.score[doc])})
			}
		}
		return TopK(cands, req.Limit), ctx.Err()
	}
	notes := t.pool.Get().(*accumulator)
	defer t.pool.Put(notes)
	notes.reset(t.numNotes)
	for i, id := range ids {
		notes.add(t.notes[id], weights[i])
	}
	for _, doc := range chunks.touched {
		note := uint32(t.chunkNote[doc])
		if s := chunks.score[doc]; s > notes.score[note] {
			notes.raise(note, s)
		}
	}
	cands := make([]Candidate, 0, len(notes.touched))
	for _, doc := range notes.touched {
		if req.Allow == nil || req.Allow(int(doc)) {
			cands = append(cands, Candidate{Note: int(doc), Chunk: NoChunk, Score: float64(notes.score[doc])})
		}
	}
	return TopK(cands, req.Limit), ctx.Err()
}

// BestChunk returns the note's chunk with the highest cosine against the
// query, or NoChunk when none shares a term with it. Note-level hits show
// their snippet from this chunk, the passage that earned the note its rank.
func (t *TFIDF) BestChunk(query string, note int) int {
	if note < 0 || note >= t.numNotes {
		return NoChunk
	}
	lo, hi := uint32(t.chunkBase[note]), uint32(t.chunkBase[note+1])
	if lo == hi {
		return NoChunk
	}
	ids, weights := t.queryVector(query)
	scores := make([]float32, hi-lo)
	for i, id := range ids {
		ps := t.chunks[id]
		j, _ := slices.BinarySearchFunc(ps, lo, func(p posting, d uint32) int { return cmp.Compare(p.doc, d) })
		for ; j < len(ps) && ps[j].doc < hi; j++ {
			scores[ps[j].doc-lo] += ps[j].w * weights[i]
		}
	}
	best := NoChunk
	var top float32
	for c, s := range scores {
		if s > top {
			best, top = c, s
		}
	}
	return best
}

// queryVector returns the query's known terms and their normalised
// weights.
func (t *TFIDF) queryVector(q string) ([]uint32, []float32) {
	tf := map[uint32]float32{}
	t.an.Each(q, analysis.Query, func(term string, _, _ int) {
		if id, ok := t.dict[term]; ok {
			tf[id]++
		}
	})
	ids := make([]uint32, 0, len(tf))
	for id := range tf {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	weights := make([]float32, len(ids))
	var norm float64
	for i, id := range ids {
		weights[i] = sublinear(tf[id]) * t.idf[id]
		norm += float64(weights[i]) * float64(weights[i])
	}
	for i := range weights {
		weights[i] /= float32(math.Sqrt(norm))
	}
	return ids, weights
}

// accumulator sums scores per document without touching untouched ones.
type accumulator struct {
	score   []float32
	touched []uint32
}

func (a *accumulator) reset(n int) {
	for _, d := range a.touched {
		a.score[d] = 0
	}
	a.touched = a.touched[:0]
	if cap(a.score) < n {
		a.score = make([]float32, n)
	}
	a.score = a.score[:n]
}

// raise sets a document's score to s (s above the current score).
func (a *accumulator) raise(doc uint32, s float32) {
	if a.score[doc] == 0 {
		a.touched = append(a.touched, doc)
	}
	a.score[doc] = s
}

func (a *accumulator) add(ps []posting, w float32) {
	for _, p := range ps {
		if a.score[p.doc] == 0 {
			a.touched = append(a.touched, p.doc)
		}
		a.score[p.doc] += p.w * w
	}
}
