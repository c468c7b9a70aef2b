package rankers

import (
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
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// FieldWeights scale how much one occurrence of a term counts in each part
// of a note (see [index.FieldWeights]).
type FieldWeights = index.FieldWeights

// DefaultFieldWeights are the weights obsidian_search uses: the same
// per-field weights as BM25's column weights, from their one copy
// [index.DefaultFieldWeights].
var DefaultFieldWeights = index.DefaultFieldWeights()

// TFIDF is the always-available lexical signal: sublinear tf, smoothed idf,
// vectors divided by their pivoted L2 norm (see pivoted), scored as a dot
// product through an inverted index. It
// indexes notes (all fields) and chunks (chunk text plus its title and
// heading path) with one vocabulary and one idf. A TFIDF is immutable and
// safe for concurrent use; [TFIDF.Update] makes a new one for a changed
// vault, sharing everything the change did not touch.
//
// Postings hold a document's sublinear term frequency, not its weight, so
// that a change of a term's document frequency rewrites nothing: idf is
// computed when a query runs. A document's vector norm depends on every
// idf, and every idf on the number of notes N; it is kept exact through
// three sums per document. With A = ln(1+N)+1 and l = ln(1+df), a term's
// idf is A−l, so the squared norm Σ tf²(A−l)² is A²·S0 − 2A·S1 + S2 with
// S0 = Σ tf², S1 = Σ tf²·l and S2 = Σ tf²·l². A new N changes only A;
// a term whose df changes adjusts S1 and S2 of the documents holding it.
type TFIDF struct {
	an     *analysis.Analyzer
	fw     FieldWeights
	dict   termDict
	notes  postingLists // term → note slots
	chunks postingLists // term → chunk slots
	// Slots are stable document numbers: a note keeps its slot while its
	// content is unchanged, so postings never need renumbering when note
	// ids shift. A changed note gets new slots; the old ones die.
	noteDocs  []noteDoc
	chunkDocs []chunkDoc
	slotOf    []int32   // note id → slot
	noteInv   []float32 // note slot → 1/pivoted norm (0: dead or empty)
	chunkInv  []float32 // chunk slot → 1/pivoted norm
	numNotes  int
	pool      *sync.Pool      // *accumulator
	fbTerms   *noteTermCache  // feedback notes' terms (feedback_cache.go); nil: none kept
	file      *statefile.File // the mapped state postings are read from (tfidf_file.go); nil: none
	fences    *fenceCache     // the file's long lists' fences (tfidf_file.go); nil without a file
}

type noteDoc struct {
	sums  normSums
	note  int32 // id in the current snapshot; -1 for a dead slot
	first int32 // first chunk slot (a note's chunks are consecutive)
	count int32 // chunks
}

type chunkDoc struct {
	sums normSums
	slot int32 // the note's slot
}

// normSums are S0, S1 and S2 of a document (see TFIDF).
type normSums struct{ s0, s1, s2 float64 }

// norm is the document's L2 norm with A = a.
func (s normSums) norm(a float64) float64 {
	if sq := a*a*s.s0 - 2*a*s.s1 + s.s2; sq > 0 {
		return math.Sqrt(sq)
	}
	return 0
}

// posting is one document's sublinear term frequency for one term.
type posting struct {
	doc uint32
	tf  float32
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
	empty := &TFIDF{an: an, fw: fw, pool: &sync.Pool{New: func() any { return &accumulator{} }}, fbTerms: newNoteTermCache()}
	old := make([]int, len(notes))
	for i := range old {
		old[i] = -1
	}
	return empty.Update(ctx, notes, chunks, old, nil)
}

// Gone is a note whose content leaves the index in an [TFIDF.Update]: its
// id in the old index, and its note and chunks as they were indexed.
type Gone struct {
	ID     int
	Note   *vault.Note
	Chunks []chunk.Chunk
}

// Update returns the index of notes (chunks[i] the chunks of notes[i]):
// old[i] is the id in t of note i when its content is unchanged, -1 when
// it is new or changed; gone lists every note of t whose content is no
// longer there. Only the new and gone notes are analysed, and only the
// posting lists of their terms are copied; t stays as it was. The result
// scores exactly (to float rounding) as NewTFIDF over the same notes.
func (t *TFIDF) Update(ctx context.Context, notes []*vault.Note, chunks [][]chunk.Chunk, old []int, gone []Gone) (*TFIDF, error) {
	if len(chunks) != len(notes) || len(old) != len(notes) {
		return nil, fmt.Errorf("tfidf: %d notes but %d chunk lists and %d ids", len(notes), len(chunks), len(old))
	}
	var added []int
	for i, o := range old {
		if o < 0 {
			added = append(added, i)
		} else if o >= len(t.slotOf) {
			return nil, fmt.Errorf("tfidf: note %d maps to id %d of an index of %d notes", i, o, len(t.slotOf))
		}
	}
	fresh, err := countAll(ctx, t.an, pick(notes, added), pick(chunks, added), t.fw)
	if err != nil {
		return nil, err
	}
	goneNotes, goneChunks := make([]*vault.Note, len(gone)), make([][]chunk.Chunk, len(gone))
	for i, g := range gone {
		goneNotes[i], goneChunks[i] = g.Note, g.Chunks
	}
	stale, err := countAll(ctx, t.an, goneNotes, goneChunks, t.fw)
	if err != nil {
		return nil, err
	}
	u := &TFIDF{an: t.an, fw: t.fw, dict: t.dict.clone(), notes: t.notes.clone(), chunks: t.chunks.clone(),
		noteDocs: slices.Clone(t.noteDocs), chunkDocs: slices.Clone(t.chunkDocs), numNotes: len(notes), pool: t.pool, fbTerms: t.fbTerms, file: t.file, fences: t.fences}
	e := newEdit(u)
	for i, g := range gone {
		e.remove(t.slotOf[g.ID], stale[i])
	}
	u.slotOf = make([]int32, len(notes))
	for i, o := range old {
		if o >= 0 {
			u.slotOf[i] = t.slotOf[o]
		}
	}
	for k, i := range added {
		u.slotOf[i] = e.add(fresh[k])
	}
	e.apply()
	for i, slot := range u.slotOf {
		u.noteDocs[slot].note = int32(i)
	}
	u.norms()
	return u, ctx.Err()
}

func pick[T any](all []T, ids []int) []T {
	out := make([]T, len(ids))
	for k, i := range ids {
		out[k] = all[i]
	}
	return out
}

// norms computes every document's inverse norm for the current N:
// pivoted (see pivoted), with the mean norm of the live notes, and of the
// live chunks, as the pivots.
func (t *TFIDF) norms() {
	a := t.a()
	notes := make([]float64, len(t.noteDocs))
	for i, d := range t.noteDocs {
		if d.note >= 0 {
			notes[i] = d.sums.norm(a)
		}
	}
	chunks := make([]float64, len(t.chunkDocs))
	for i, d := range t.chunkDocs {
		if t.noteDocs[d.slot].note >= 0 {
			chunks[i] = d.sums.norm(a)
		}
	}
	t.noteInv = invPivoted(notes)
	t.chunkInv = invPivoted(chunks)
}

// invPivoted is 1 / the pivoted norm of each positive norm (0 stays 0).
func invPivoted(norms []float64) []float32 {
	pivot := meanPositive(norms)
	inv := make([]float32, len(norms))
	for i, n := range norms {
		if n > 0 {
			inv[i] = float32(1 / pivoted(n, pivot, PivotSlope))
		}
	}
	return inv
}

// edit collects the posting changes of one Update per term, then applies
// them term by term.
type edit struct {
	t               *TFIDF
	noteW, chunkW   listWriter
	drop            map[uint32]*termEdit
	firstNew        uint32 // first note slot made by this edit
	firstNewChunk   uint32
	addedNote       []int32 // note slots made by this edit
	addedTerms      [][]idCount
	addedChunkTerms [][][]idCount
}

type termEdit struct {
	dropNotes, dropChunks []uint32
	addNotes, addChunks   []posting
}

type idCount struct {
	id uint32
	tf float32
}

func newEdit(t *TFIDF) *edit {
	return &edit{t: t, noteW: listWriter{p: &t.notes}, chunkW: listWriter{p: &t.chunks},
		drop: map[uint32]*termEdit{}, firstNew: uint32(len(t.noteDocs)), firstNewChunk: uint32(len(t.chunkDocs))}
}

func (e *edit) term(id uint32) *termEdit {
	te := e.drop[id]
	if te == nil {
		te = &termEdit{}
		e.drop[id] = te
	}
	return te
}

// remove takes a note slot's postings out (its terms as counted now).
func (e *edit) remove(slot int32, d docTerms) {
	doc := &e.t.noteDocs[slot]
	for _, tc := range d.note {
		if id, ok := e.t.dict.lookup(tc.term); ok {
			te := e.term(id)
			te.dropNotes = append(te.dropNotes, uint32(slot))
		}
	}
	for c, terms := range d.chunks {
		if int32(c) >= doc.count {
			break
		}
		for _, tc := range terms {
			if id, ok := e.t.dict.lookup(tc.term); ok {
				te := e.term(id)
				te.dropChunks = append(te.dropChunks, uint32(doc.first)+uint32(c))
			}
		}
	}
	doc.note = -1
}

// add gives a new note a slot and its chunks slots, and queues its
// postings.
func (e *edit) add(d docTerms) int32 {
	t := e.t
	slot := int32(len(t.noteDocs))
	first := int32(len(t.chunkDocs))
	t.noteDocs = append(t.noteDocs, noteDoc{note: -1, first: first, count: int32(len(d.chunks))})
	terms := e.ids(d.note)
	for _, ic := range terms {
		te := e.term(ic.id)
		te.addNotes = append(te.addNotes, posting{uint32(slot), sublinear(ic.tf)})
	}
	chunkTerms := make([][]idCount, len(d.chunks))
	for c, tcs := range d.chunks {
		cs := uint32(first) + uint32(c)
		t.chunkDocs = append(t.chunkDocs, chunkDoc{slot: slot})
		chunkTerms[c] = e.ids(tcs)
		for _, ic := range chunkTerms[c] {
			te := e.term(ic.id)
			te.addChunks = append(te.addChunks, posting{cs, sublinear(ic.tf)})
		}
	}
	e.addedNote = append(e.addedNote, slot)
	e.addedTerms = append(e.addedTerms, terms)
	e.addedChunkTerms = append(e.addedChunkTerms, chunkTerms)
	return slot
}

func (e *edit) ids(tcs []termCount) []idCount {
	out := make([]idCount, len(tcs))
	for j, tc := range tcs {
		out[j] = idCount{e.t.dict.add(tc.term), tc.tf}
	}
	return out
}

// apply rewrites the posting lists of every touched term, moves the norm
// sums of the documents whose idf changed, and sums up the new documents.
func (e *edit) apply() {
	t := e.t
	ids := make([]uint32, 0, len(e.drop))
	for id := range e.drop {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the same float sums in the same order every time
	for _, id := range ids {
		te := e.drop[id]
		before := len(t.notes.get(id))
		notes := rewrite(t.notes.get(id), te.dropNotes, te.addNotes)
		chunks := rewrite(t.chunks.get(id), te.dropChunks, te.addChunks)
		e.noteW.set(id, notes)
		e.chunkW.set(id, chunks)
		lOld, lNew := math.Log1p(float64(before)), math.Log1p(float64(len(notes)))
		if lOld == lNew {
			continue
		}
		d1, d2 := lNew-lOld, lNew*lNew-lOld*lOld
		for _, p := range notes {
			if p.doc < e.firstNew {
				shift(&t.noteDocs[p.doc].sums, p.tf, d1, d2)
			}
		}
		for _, p := range chunks {
			if p.doc < e.firstNewChunk {
				shift(&t.chunkDocs[p.doc].sums, p.tf, d1, d2)
			}
		}
	}
	for k, slot := range e.addedNote {
		t.noteDocs[slot].sums = e.sums(e.addedTerms[k])
		for c, terms := range e.addedChunkTerms[k] {
			t.chunkDocs[t.noteDocs[slot].first+int32(c)].sums = e.sums(terms)
		}
	}
}

func shift(s *normSums, tf float32, d1, d2 float64) {
	w := float64(tf) * float64(tf)
	s.s1 += w * d1
	s.s2 += w * d2
}

// sums are a new document's S0, S1, S2 with the final document
// frequencies.
func (e *edit) sums(terms []idCount) normSums {
	var s normSums
	for _, ic := range terms {
		tf := float64(sublinear(ic.tf))
		w := tf * tf
		l := math.Log1p(float64(len(e.t.notes.get(ic.id))))
		s.s0 += w
		s.s1 += w * l
		s.s2 += w * l * l
	}
	return s
}

// rewrite returns ps without the drop slots, with add appended (add's
// slots are new, so larger than any in ps: the list stays sorted).
func rewrite(ps []posting, drop []uint32, add []posting) []posting {
	if len(drop) == 0 && len(add) == 0 {
		return ps
	}
	out := make([]posting, 0, len(ps)-len(drop)+len(add))
	if len(drop) == 0 {
		out = append(out, ps...)
	} else {
		slices.Sort(drop)
		for _, p := range ps {
			if _, found := slices.BinarySearch(drop, p.doc); !found {
				out = append(out, p)
			}
		}
	}
	out = append(out, add...)
	if len(out) == 0 {
		return nil
	}
	return out
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

// idfOf is the idf of a term id with A = ln(1+N)+1.
func (t *TFIDF) idfOf(id uint32, a float64) float64 {
	return a - math.Log1p(float64(len(t.notes.get(id))))
}

func (t *TFIDF) a() float64 { return math.Log(1+float64(t.numNotes)) + 1 }

// live reports whether a term id is in some document (a term whose last
// document left stays in the dictionary, but must not count).
func (t *TFIDF) live(id uint32) bool { return len(t.notes.get(id))+len(t.chunks.get(id)) > 0 }

// IDF returns the idf of an analyzed term (0 if unknown).
func (t *TFIDF) IDF(term string) float64 {
	if id, ok := t.dict.lookup(term); ok && t.live(id) {
		return float64(float32(t.idfOf(id, t.a())))
	}
	return 0
}

// Rank scores chunks, or notes, by cosine similarity with the query. A
// note scores as the better of its own cosine and its best chunk's: a
// long note with one passage about the query is not diluted by the rest.
func (t *TFIDF) Rank(ctx context.Context, req Request) ([]Candidate, error) {
	ids, weights := t.queryVector(req.Query)
	return t.rankVector(ctx, req, ids, weights)
}

// rankVector ranks by a query vector: term ids and their weights.
func (t *TFIDF) rankVector(ctx context.Context, req Request, ids []uint32, weights []float32) ([]Candidate, error) {
	if len(ids) == 0 || req.Limit <= 0 {
		return nil, nil
	}
	chunks := t.pool.Get().(*accumulator)
	defer t.pool.Put(chunks)
	chunks.reset(len(t.chunkDocs))
	for i, id := range ids {
		chunks.add(t.read(t.chunks.get(id), &chunks.buf), weights[i])
	}
	chunks.scale(t.chunkInv)
	if req.Block {
		// The best are kept as they come, not gathered first: a common
		// term touches most of the vault (at 107,000 notes that was a
		// megabyte of garbage per search).
		top := newBoundedTop(req.Limit, len(chunks.touched))
		for _, doc := range chunks.touched {
			nd := t.noteDocs[t.chunkDocs[doc].slot]
			note := int(nd.note)
			if req.Allow == nil || req.Allow(note) {
				top.offer(Candidate{Note: note, Chunk: int(int32(doc) - nd.first), Score: float64(chunks.score[doc])})
			}
		}
		return top.sorted(), ctx.Err()
	}
	notes := t.pool.Get().(*accumulator)
	defer t.pool.Put(notes)
	notes.reset(len(t.noteDocs))
	for i, id := range ids {
		notes.add(t.read(t.notes.get(id), &notes.buf), weights[i])
	}
	notes.scale(t.noteInv)
	for _, doc := range chunks.touched {
		slot := uint32(t.chunkDocs[doc].slot)
		if s := chunks.score[doc]; s > notes.score[slot] {
			notes.raise(slot, s)
		}
	}
	top := newBoundedTop(req.Limit, len(notes.touched))
	for _, doc := range notes.touched {
		note := int(t.noteDocs[doc].note)
		if req.Allow == nil || req.Allow(note) {
			top.offer(Candidate{Note: note, Chunk: NoChunk, Score: float64(notes.score[doc])})
		}
	}
	return top.sorted(), ctx.Err()
}

// BestChunk returns the note's chunk with the highest cosine against the
// query, or NoChunk when none shares a term with it. Note-level hits show
// their snippet from this chunk, the passage that earned the note its rank.
func (t *TFIDF) BestChunk(query string, note int) int {
	best := NoChunk
	var top float32
	for c, s := range t.ChunkScores(query, note) {
		if s > top {
			best, top = c, s
		}
	}
	return best
}

// queryVector returns the query's known terms and, for each, its
// normalised query weight times its idf: a posting's tf times that, over
// the document's norm, is the term's share of the cosine.
func (t *TFIDF) queryVector(q string) ([]uint32, []float32) {
	tf := map[uint32]float32{}
	t.an.Each(q, analysis.Query, func(term string, _, _ int) {
		if id, ok := t.dict.lookup(term); ok && t.live(id) {
			tf[id]++
		}
	})
	ids := make([]uint32, 0, len(tf))
	for id := range tf {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	a := t.a()
	idf := make([]float32, len(ids))
	weights := make([]float32, len(ids))
	var norm float64
	for i, id := range ids {
		idf[i] = float32(t.idfOf(id, a))
		weights[i] = sublinear(tf[id]) * idf[i]
		norm += float64(weights[i]) * float64(weights[i])
	}
	for i := range weights {
		weights[i] = weights[i] / float32(math.Sqrt(norm)) * idf[i]
	}
	return ids, weights
}

// accumulator sums scores per document without touching untouched ones.
type accumulator struct {
	score   []float32
	touched []uint32
	buf     []posting // a list read from the state file (TFIDF.read)
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
		a.score[p.doc] += p.tf * w
	}
}

// scale multiplies every touched document's sum by its inverse norm.
func (a *accumulator) scale(inv []float32) {
	for _, d := range a.touched {
		a.score[d] *= inv[d]
	}
}
