package rankers

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ErrModelMismatch is returned when a search asks for an embedding model
// other than the one the vectors were built with.
var ErrModelMismatch = errors.New("embedding model mismatch")

// Embeddings is the dense signal: exact cosine similarity between the
// query's vector and every chunk vector. The vectors stay as the index
// stores them, int8 with one float32 scale per row, in one contiguous
// array (a quarter of the float32 size: 14 MB instead of 55 MB at 138,000
// chunks of 100 dimensions), so a query is a tight loop with no
// allocation per row; a note scores as its best chunk. Each component is
// dequantized inside the loop exactly as a float32 copy made at load
// would hold it (see dot8), so the scores are those of float32 vectors
// to the bit.
type Embeddings struct {
	model  embed.Embedder
	alias  string
	dim    int
	vecs   []int8    // rows × dim; row r is scales[r] × vecs[r*dim:(r+1)*dim], unit length
	scales []float32 // row → scale
	// dense holds the rows dequantized, rows × dim, where that pays (see
	// denseBudget); nil otherwise.
	dense  []float32
	notes  []int32 // row → note id
	chunks []int32 // row → chunk index in the note
	nNotes int
	pool   sync.Pool // *[]float32 scores
	// notePool holds *noteScratch for topNotes.
	notePool sync.Pool
	// rowsOf maps a note to its rows, built on first use (ChunkCosines).
	rowsOnce sync.Once
	rowsOf   [][]int32
	// stamp is the index's vector stamp the rows were read at ("" when
	// unknown); see embeddings_state.go.
	stamp string
	// total is the snapshot's chunk count: rows below it are chunks
	// without a vector (build-embeddings not run to the end yet).
	total int
}

// VectorModel is the model the stored vectors were made with.
type VectorModel struct {
	// ID is the embedder's ID, Alias the name the user picked it by.
	ID, Alias string
}

// LoadEmbeddings reads the vectors of the chunks of snap from ix. model
// embeds queries and must be the model recorded in the index. chunks
// reports a note's chunk count, so rows of an index that lags the
// snapshot are dropped rather than misattributed.
func LoadEmbeddings(ctx context.Context, ix *index.Index, snap *vault.Snapshot, chunks func(note int) int, model embed.Embedder, alias string) (*Embeddings, error) {
	id, dim, err := ix.Vectors().Model(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errors.New("no embeddings in the index (run `enquire-mcp build-embeddings`)")
	}
	if id != model.ID() || dim != model.Dim() {
		return nil, fmt.Errorf("%w: the index holds %s (%d dims), the loaded model is %s", ErrModelMismatch, id, dim, model.ID())
	}
	rows := chunkTotal(len(snap.Notes), chunks)
	e := &Embeddings{model: model, alias: alias, dim: dim, nNotes: len(snap.Notes), total: rows}
	// At most one vector per chunk: sized once, not grown by doubling (at
	// 100k notes that growth copied several times the final array).
	e.vecs, e.scales = make([]int8, 0, rows*dim), make([]float32, 0, rows)
	e.notes, e.chunks = make([]int32, 0, rows), make([]int32, 0, rows)
	e.stamp, err = ix.Vectors().EachStamped(ctx, func(ref index.ChunkRef, scale float32, vec []int8) error {
		e.addStored(snap, chunks, ref, scale, vec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(e.notes) < rows-rows/8 { // many chunks without a vector: give the rest back
		e.vecs, e.scales = slices.Clone(e.vecs), slices.Clone(e.scales)
		e.notes, e.chunks = slices.Clone(e.notes), slices.Clone(e.chunks)
	}
	e.settle()
	return e, nil
}

// denseBudget is the largest float32 copy of the vectors kept for speed.
// Without the int8 vector kernel (dot8Rows, AVX2) a full scan over
// float32 rows takes about two thirds of the CPU of one over the int8
// rows (BenchmarkEmbeddingsRank), which matters where every query scans
// every row: up to the prefilter limit. So, on such CPUs, the copy is
// made for at most DefaultPrefilterLimit rows (50,000 × 384 dimensions is
// 77 MB) and within this budget, which a 1,536-dimension remote model
// exceeds at 22,000 chunks; bigger vaults, whose dense stage the
// prefilter confines to the lexical candidates, keep int8 only (at
// 138,000 chunks of 100 dimensions: 14 MB instead of 69 MB).
const denseBudget = 128 << 20

// denseCopyPays reports whether a float32 copy of rows vectors holding
// components values in all speeds up the scan: not where the int8 kernel
// scans (it reads a quarter of the bytes), nor past the prefilter limit
// or denseBudget.
func denseCopyPays(rows, components int, int8Kernel bool) bool {
	return !int8Kernel && rows <= DefaultPrefilterLimit && 4*components <= denseBudget
}

// settle makes the float32 copy of the rows where it pays (see
// denseCopyPays). Each component is scale × stored value rounded to
// float32, so dot over it equals dot8 over the stored row to the bit.
func (e *Embeddings) settle() { e.settleFrom(nil, nil) }

// settleFrom is settle for an update of prev: e's first len(kept) rows
// are prev's rows kept (row r is prev's row kept[r]), whose float32 copy,
// if prev has one, is copied rather than computed again.
func (e *Embeddings) settleFrom(prev *Embeddings, kept []int32) {
	e.dense = nil
	if denseCopyPays(len(e.scales), len(e.vecs), haveDot8Lanes) {
		e.fillDense(prev, kept)
	}
}

// fillDense makes the float32 copy of every row (see settleFrom).
func (e *Embeddings) fillDense(prev *Embeddings, kept []int32) {
	e.dense = make([]float32, len(e.vecs))
	for r, scale := range e.scales {
		row := e.dense[r*e.dim : (r+1)*e.dim]
		if r < len(kept) && prev != nil && prev.dense != nil {
			copy(row, prev.dense[int(kept[r])*e.dim:])
			continue
		}
		for i, x := range e.row(r) {
			row[i] = scale * float32(x)
		}
	}
}

// addStored appends a vector read from the index unless it belongs to no
// chunk of snap (a note or chunk the index has and the snapshot not) or
// has another dimension.
func (e *Embeddings) addStored(snap *vault.Snapshot, chunks func(note int) int, ref index.ChunkRef, scale float32, vec []int8) {
	note, ok := snap.NoteIDExact(ref.Path)
	if ok && ref.Chunk >= 0 && ref.Chunk < chunks(note) && len(vec) == e.dim {
		e.addRow(scale, vec, int32(note), int32(ref.Chunk))
	}
}

// addRow appends one chunk's stored vector.
func (e *Embeddings) addRow(scale float32, vec []int8, note, chunk int32) {
	e.vecs = append(e.vecs, vec...)
	e.scales = append(e.scales, scale)
	e.notes = append(e.notes, note)
	e.chunks = append(e.chunks, chunk)
}

// row is row r's stored components; its vector is scales[r] times them.
func (e *Embeddings) row(r int) []int8 { return e.vecs[r*e.dim : (r+1)*e.dim] }

// dotRow is the inner product of q with row r.
func (e *Embeddings) dotRow(q []float32, r int) float32 {
	if e.dense != nil {
		return dot(q, e.dense[r*e.dim:(r+1)*e.dim])
	}
	return dot8(q, e.row(r), e.scales[r])
}

// Name implements Ranker.
func (e *Embeddings) Name() string { return SignalEmbeddings }

// Model identifies the vectors' model.
func (e *Embeddings) Model() VectorModel { return VectorModel{ID: e.model.ID(), Alias: e.alias} }

// Len is the number of chunk vectors.
func (e *Embeddings) Len() int { return len(e.notes) }

// Matches reports whether a requested embedding_model names this model:
// empty, its alias or its full ID.
func (e *Embeddings) Matches(requested string) bool {
	return requested == "" || requested == e.alias || requested == e.model.ID()
}

// Rank implements Ranker.
func (e *Embeddings) Rank(ctx context.Context, req Request) ([]Candidate, error) {
	if !e.Matches(req.EmbeddingModel) {
		return nil, fmt.Errorf("%w: embedding_model %q, but the embeddings were built with %q (%s); rebuild with `enquire-mcp build-embeddings --embedding-model %s` or omit embedding_model",
			ErrModelMismatch, req.EmbeddingModel, e.alias, e.model.ID(), req.EmbeddingModel)
	}
	if req.Limit <= 0 {
		return nil, nil
	}
	if len(e.notes) == 0 {
		return nil, e.coverage()
	}
	qv, err := e.model.Embed(ctx, []string{req.Query}, embed.Query)
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(qv) != 1 || len(qv[0]) != e.dim {
		return nil, fmt.Errorf("embed query: %w", embed.ErrDimension)
	}
	if zero(qv[0]) {
		return nil, nil // the model knows none of the query's words
	}
	if req.Within != nil {
		cands := e.rankWithin(qv[0], req)
		if err := ctx.Err(); err != nil {
			return cands, err
		}
		return cands, e.coverage()
	}
	scores := e.scores(qv[0])
	defer e.pool.Put(scores)
	var cands []Candidate
	if req.Block {
		cands = e.topChunks(*scores, req)
	} else {
		cands = e.topNotes(*scores, req)
	}
	if err := ctx.Err(); err != nil {
		return cands, err
	}
	return cands, e.coverage()
}

// coverage is a *Partial naming how many chunks have a vector when some
// have none, so that a reply served from a part of the vault's vectors
// says so; nil when every chunk has one. With none at all (a build that
// has just begun) the signal did not take part: an error, not a Partial.
func (e *Embeddings) coverage() error {
	have := len(e.notes)
	if have == 0 && e.total > 0 {
		return fmt.Errorf("no chunk has a vector yet (0 of %d): the lexical signals answer alone until `enquire-mcp build-embeddings` stores some", e.total)
	}
	if have < e.total {
		return &Partial{Msg: fmt.Sprintf("vectors for %d of %d chunks (%d%%): the others rank by the lexical signals alone until `enquire-mcp build-embeddings` completes",
			have, e.total, have*100/e.total)}
	}
	return nil
}

// chunkTotal is the chunk count of a snapshot of n notes.
func chunkTotal(n int, chunks func(note int) int) int {
	t := 0
	for i := range n {
		t += chunks(i)
	}
	return t
}

// scores computes every row's cosine (vectors are unit length), on all
// cores for big tables.
func (e *Embeddings) scores(q []float32) *[]float32 {
	p, _ := e.pool.Get().(*[]float32)
	if p == nil || cap(*p) < len(e.notes) {
		s := make([]float32, len(e.notes))
		p = &s
	}
	out := (*p)[:len(e.notes)]
	*p = out
	workers := 1
	if len(e.vecs) >= 1<<20 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(out)/workers, (w+1)*len(out)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch {
			case e.dense != nil: // only where the int8 kernel is missing
				dotRows(q, e.dense[lo*e.dim:hi*e.dim], e.dim, out[lo:hi])
				return
			case haveDot8Lanes:
				// The vector kernel reads a quarter of the bytes of
				// a float32 copy: the scan is bound by memory.
				dot8Rows(q, e.vecs[lo*e.dim:hi*e.dim], e.scales[lo:hi], e.dim, out[lo:hi])
				return
			}
			for r := lo; r < hi; r++ {
				out[r] = dot8(q, e.row(r), e.scales[r])
			}
		}()
	}
	wg.Wait()
	return p
}

func (e *Embeddings) topChunks(scores []float32, req Request) []Candidate {
	cands := make([]Candidate, 0, min(len(scores), 4*req.Limit))
	for r, s := range scores {
		note := int(e.notes[r])
		if dropped(s, req) {
			continue
		}
		if req.Allow == nil || req.Allow(note) {
			cands = append(cands, Candidate{Note: note, Chunk: int(e.chunks[r]), Score: float64(s)})
		}
	}
	return TopK(cands, req.Limit)
}

// topNotes keeps each note's best chunk.
func (e *Embeddings) topNotes(scores []float32, req Request) []Candidate {
	sc := e.noteScratch()
	defer e.putNoteScratch(sc)
	best, seen, notes := sc.best, sc.seen, sc.notes
	for r, s := range scores {
		n := e.notes[r]
		if dropped(s, req) {
			continue
		}
		if !seen[n] {
			seen[n], best[n] = true, s
			notes = append(notes, n)
		} else if s > best[n] {
			best[n] = s
		}
	}
	sc.notes = notes
	if req.Limit <= 0 {
		return nil
	}
	// Fed as the notes come: every note has a score, so a slice of them
	// all would be the biggest allocation of a search.
	top := newBoundedTop(req.Limit, len(notes))
	for _, n := range notes {
		if req.Allow == nil || req.Allow(int(n)) {
			top.offer(Candidate{Note: int(n), Chunk: NoChunk, Score: float64(best[n])})
		}
	}
	return top.sorted()
}

// dropped reports a row below the request's min_similarity.
func dropped(s float32, req Request) bool {
	return req.MinSimilarity > 0 && float64(s) < req.MinSimilarity
}

func zero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// identity reports whether renum maps every id to itself.
func identity(renum []int32) bool {
	for i, to := range renum {
		if int(to) != i {
			return false
		}
	}
	return true
}

// dot8 is dot(q, v') where v'[i] = scale*float32(v[i]) is rounded to
// float32 before it is multiplied (the explicit conversion forbids fusing
// the two multiplications): the very values and operations of dot over
// a dequantized float32 copy of the vectors.
func dot8(q []float32, v []int8, scale float32) float32 {
	v = v[:len(q)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(q); i += 8 {
		s0 += float32(q[i] * float32(scale*float32(v[i])))
		s1 += float32(q[i+1] * float32(scale*float32(v[i+1])))
		s2 += float32(q[i+2] * float32(scale*float32(v[i+2])))
		s3 += float32(q[i+3] * float32(scale*float32(v[i+3])))
		s4 += float32(q[i+4] * float32(scale*float32(v[i+4])))
		s5 += float32(q[i+5] * float32(scale*float32(v[i+5])))
		s6 += float32(q[i+6] * float32(scale*float32(v[i+6])))
		s7 += float32(q[i+7] * float32(scale*float32(v[i+7])))
	}
	for ; i < len(q); i++ {
		s0 += float32(q[i] * float32(scale*float32(v[i])))
	}
	return (s0 + s1) + (s2 + s3) + ((s4 + s5) + (s6 + s7))
}

// dot is the inner product, unrolled eight ways (independent sums let the
// CPU overlap the multiplications). Each product is rounded to float32
// before it is added (the conversion forbids a fused multiply-add), so
// dotRows's vector kernel gives the same sums on every build.
func dot(q, v []float32) float32 {
	v = v[:len(q)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(q); i += 8 {
		s0 += float32(q[i] * v[i])
		s1 += float32(q[i+1] * v[i+1])
		s2 += float32(q[i+2] * v[i+2])
		s3 += float32(q[i+3] * v[i+3])
		s4 += float32(q[i+4] * v[i+4])
		s5 += float32(q[i+5] * v[i+5])
		s6 += float32(q[i+6] * v[i+6])
		s7 += float32(q[i+7] * v[i+7])
	}
	for ; i < len(q); i++ {
		s0 += float32(q[i] * v[i])
	}
	return (s0 + s1) + (s2 + s3) + ((s4 + s5) + (s6 + s7))
}

// Update returns the dense signal for snap, an update of the snapshot e
// was loaded for: old maps each note of snap to its id in that snapshot
// when its content is unchanged (-1 otherwise). Rows of unchanged notes
// are kept (renumbered), rows of changed and deleted notes dropped, and
// only the vectors of the new content are read from the index.
func (e *Embeddings) Update(ctx context.Context, ix *index.Index, snap *vault.Snapshot, chunks func(note int) int, old []int) (*Embeddings, error) {
	renum := make([]int32, e.nNotes)
	for i := range renum {
		renum[i] = -1
	}
	var fresh []string
	for i, o := range old {
		if o >= 0 && o < len(renum) {
			renum[o] = int32(i)
		} else {
			fresh = append(fresh, snap.Notes[i].Path)
		}
	}
	if len(fresh) == 0 && len(old) == e.nNotes && identity(renum) {
		// Every note kept at its id (a warm start with nothing changed):
		// the rows are e's; they are never modified, so they are shared.
		u := &Embeddings{model: e.model, alias: e.alias, dim: e.dim, nNotes: e.nNotes, total: e.total,
			vecs: e.vecs, scales: e.scales, dense: e.dense, notes: e.notes, chunks: e.chunks,
			stamp: e.stampAfter(ctx, ix, 0)}
		return u, nil
	}
	u := &Embeddings{model: e.model, alias: e.alias, dim: e.dim, nNotes: len(snap.Notes), total: chunkTotal(len(snap.Notes), chunks)}
	u.vecs, u.scales = make([]int8, 0, len(e.vecs)), make([]float32, 0, len(e.scales))
	var kept []int32 // u's row → e's row, for the rows kept
	for r, n := range e.notes {
		if to := renum[n]; to >= 0 {
			u.addRow(e.scales[r], e.row(r), to, e.chunks[r])
			kept = append(kept, int32(r))
		}
	}
	if len(fresh) > 0 {
		err := ix.Vectors().EachOf(ctx, fresh, func(ref index.ChunkRef, scale float32, vec []int8) error {
			u.addStored(snap, chunks, ref, scale, vec)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	u.stamp = e.stampAfter(ctx, ix, len(fresh))
	u.settleFrom(e, kept)
	return u, nil
}
