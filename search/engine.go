// Package search is the one search pipeline behind obsidian_search, the
// search command and eval: filters → every ranker → Reciprocal Rank Fusion
// → min_signals → graph boost → cut to limit → hits with snippets and ages.
package search

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// DefaultStaleDays is the age from which a hit is reported stale.
const DefaultStaleDays = 365

// Options configure an Engine.
type Options struct {
	// StaleDays is the age_days from which a hit is stale (0: 365), and
	// the half-life of recency (see recency.go).
	StaleDays int
	Chunk     chunk.Options
	Fields    rankers.FieldWeights
	Boost     graph.BoostOptions
	// RRFK is the fusion constant (0: 60).
	RRFK float64
	// Weights are the RRF weights per signal (nil: equal weights); a
	// request's own Weights take precedence.
	Weights map[string]float64
	// BM25, when not the zero value, are BM25's k1 and b for every
	// search, over the defaults (rankers.BM25K1, rankers.BM25B).
	BM25 index.BM25Params
	// Depth is how many candidates each signal contributes (0: the larger
	// of 100 and 5 × limit).
	Depth int
	// PrefilterLimit is the chunk count above which the dense signal
	// scores only the lexical signals' candidates (0:
	// rankers.DefaultPrefilterLimit; negative: never).
	PrefilterLimit int
	// Now is the clock (nil: time.Now); tests pin it.
	Now func() time.Time
	// Index adds the BM25 signal; it must be synced with the snapshot
	// using the same chunk options.
	Index *index.Index
	// IndexErr, when the index could not be opened, is reported as the
	// BM25 signal's error on every search (the server keeps running).
	IndexErr error
	// Embedder, with Index, adds the embeddings signal when the index
	// holds vectors of that model; EmbedderAlias is the name it was
	// chosen by (what embedding_model may say). EmbedderErr, when the
	// model could not be loaded, is reported like IndexErr.
	Embedder      embed.Embedder
	EmbedderAlias string
	EmbedderErr   error

	// RecencyWeight is the recency weight of requests that set none
	// (0..1; 0: the ranking ignores age).
	RecencyWeight float64
	// Reranker, when set, re-orders the fused top RerankTopN (0:
	// rankers.DefaultRerankTopN) hits of every request that does not
	// turn it off (see rerank.go).
	Reranker   Reranker
	RerankTopN int
}

// Engine searches one snapshot. It is immutable and safe for concurrent
// use; a vault change builds a new Engine.
type Engine struct {
	snap    *vault.Snapshot
	graph   *graph.Graph
	an      *analysis.Analyzer
	chunks  [][]chunk.Chunk
	tfidf   *rankers.TFIDF
	rankers []rankers.Ranker
	extra   []rankers.Ranker
	opts    Options
	// gen counts the updates since New: a newer engine has a larger one.
	gen uint64
	// pages caches fused lists for cursors; tags indexes rare tags for
	// Expand. Both are per engine, so a vault change starts afresh.
	pages pageCache
	tags  rareTags
	// savedPostings is the index's in-memory BM25 copy a restored state carried
	// (state_mem.go).
	savedPostings savedPostings
	// savedVecs are the dense signal's vectors a restored state carried
	// (state_vectors.go).
	savedVecs savedVectors
	// state is the state file the engine's notes were restored from (nil
	// if none): see readable.
	state *statefile.File
}

// New builds an engine: chunks, the graph and the TF-IDF index of snap.
// extra rankers (BM25, embeddings) join TF-IDF in fusion.
func New(ctx context.Context, snap *vault.Snapshot, an *analysis.Analyzer, opts Options, extra ...rankers.Ranker) (*Engine, error) {
	opts = opts.withDefaults()
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		chunks[i] = chunk.Split(n, opts.Chunk)
	}
	tf, err := rankers.NewTFIDF(ctx, an, snap.Notes, chunks, opts.Fields)
	if err != nil {
		return nil, fmt.Errorf("build tf-idf: %w", err)
	}
	return assemble(ctx, snap, an, chunks, tf, opts, extra), nil
}

// assemble makes an engine of its parts built anew (not updated): New's,
// or those a saved state restored.
func assemble(ctx context.Context, snap *vault.Snapshot, an *analysis.Analyzer, chunks [][]chunk.Chunk, tf *rankers.TFIDF, opts Options, extra []rankers.Ranker) *Engine {
	e := &Engine{snap: snap, graph: graph.New(snap), an: an, chunks: chunks, tfidf: tf, opts: opts, extra: extra}
	e.rankers = []rankers.Ranker{tf}
	e.addIndexRankers(ctx, nil, nil)
	return e
}

func (o Options) withDefaults() Options {
	if o.StaleDays <= 0 {
		o.StaleDays = DefaultStaleDays
	}
	if o.Fields == (rankers.FieldWeights{}) {
		o.Fields = rankers.DefaultFieldWeights
	}
	if o.RRFK <= 0 {
		o.RRFK = rankers.DefaultRRFK
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// addIndexRankers adds BM25 and the embeddings (updated from prev, when
// given, for a snapshot changed as d says) and the extra rankers.
func (e *Engine) addIndexRankers(ctx context.Context, prev *rankers.Embeddings, d *vault.Delta) {
	opts, snap, chunks := e.opts, e.snap, e.chunks
	chunkCount := func(n int) int { return len(chunks[n]) }
	switch {
	case opts.Index != nil:
		e.rankers = append(e.rankers, rankers.NewBM25(opts.Index, snap, chunkCount))
	case opts.IndexErr != nil:
		e.rankers = append(e.rankers, rankers.Unavailable(rankers.SignalBM25, opts.IndexErr))
	}
	if r := embeddingsRanker(ctx, opts, snap, chunkCount, prev, d); r != nil {
		e.rankers = append(e.rankers, r)
	}
	e.rankers = append(e.rankers, e.extra...)
}

// embeddingsRanker loads the dense signal: nil when the index has no
// vectors at all, a standing error when they cannot be used.
func embeddingsRanker(ctx context.Context, opts Options, snap *vault.Snapshot, chunkCount func(int) int, prev *rankers.Embeddings, d *vault.Delta) rankers.Ranker {
	if opts.Index == nil {
		return nil
	}
	stored, _, err := opts.Index.Vectors().Model(ctx)
	switch {
	case err != nil:
		return rankers.Unavailable(rankers.SignalEmbeddings, err)
	case stored == "":
		return nil
	case opts.EmbedderErr != nil:
		return rankers.Unavailable(rankers.SignalEmbeddings, opts.EmbedderErr)
	case opts.Embedder == nil:
		return rankers.Unavailable(rankers.SignalEmbeddings, fmt.Errorf("the index holds embeddings of %s but no model was loaded", stored))
	}
	var r *rankers.Embeddings
	if prev != nil && d != nil && prev.Model().ID == stored && prev.Model().ID == opts.Embedder.ID() {
		r, err = prev.Update(ctx, opts.Index, snap, chunkCount, d.Old)
	} else {
		r, err = rankers.LoadEmbeddings(ctx, opts.Index, snap, chunkCount, opts.Embedder, opts.EmbedderAlias)
	}
	if err != nil {
		return rankers.Unavailable(rankers.SignalEmbeddings, err)
	}
	return r
}

// Snapshot returns the searched snapshot.
func (e *Engine) Snapshot() *vault.Snapshot { return e.snap }

// Graph returns the snapshot's link graph. The graph is immutable, so
// sharing it is safe; it answers the link questions (paths, neighbours,
// unresolved links) that Backlinks and Outbound do not.
func (e *Engine) Graph() *graph.Graph { return e.graph }

// dense returns the dense signal, or nil when it is not loaded.
func (e *Engine) dense() *rankers.Embeddings {
	for _, r := range e.rankers {
		if emb, ok := r.(*rankers.Embeddings); ok {
			return emb
		}
	}
	return nil
}

// VectorStamp is the index's vector stamp as the loaded vectors were read:
// a poll that finds the same stamp has nothing new to load. It is "" without
// embeddings or when the stamp is unknown.
func (e *Engine) VectorStamp() string {
	if emb := e.dense(); emb != nil {
		return emb.Stamp()
	}
	return ""
}

// EmbeddingModel identifies the model of the loaded note vectors; ok is
// false without embeddings.
func (e *Engine) EmbeddingModel() (m rankers.VectorModel, ok bool) {
	if emb := e.dense(); emb != nil {
		return emb.Model(), true
	}
	return rankers.VectorModel{}, false
}

// NoteVectors returns every note's TF-IDF vector, for comparing notes
// with each other (package similar); built anew on each call.
func (e *Engine) NoteVectors() *rankers.NoteVectors { return e.tfidf.NoteVectors() }

// NoteCentroids returns every note's mean chunk vector, built anew on
// each call; nil without embeddings.
func (e *Engine) NoteCentroids() *rankers.NoteCentroids {
	if emb := e.dense(); emb != nil {
		return emb.NoteCentroids()
	}
	return nil
}

// Signals lists the available signals in fusion order.
func (e *Engine) Signals() []string {
	var out []string
	for _, r := range e.rankers {
		if !rankers.IsUnavailable(r) {
			out = append(out, r.Name())
		}
	}
	return out
}

// Result is the outcome of a search.
type Result struct {
	Query       string
	K           float64
	SignalsUsed []string
	// SignalErrors maps a signal that failed or is unavailable to why.
	SignalErrors map[string]string
	// TotalCandidates counts fused items that passed every filter.
	TotalCandidates int
	Hits            []Hit
	// NextCursor pages on (only when the request had a Cursor and more
	// candidates remain).
	NextCursor string
	// Related are the notes Expand found around the hits.
	Related []Related
}

// Hit is one result.
type Hit struct {
	Note      int
	Chunk     int // rankers.NoChunk for a note-level hit
	Path      string
	Title     string
	Kind      string // "md", "pdf" or "excalidraw" (vault.KindDrawing)
	Page      int    // PDF page of the snippet or block (0 for markdown)
	OCR       bool   // the page's text was read by OCR (a scanned page)
	Score     float64
	Signals   map[string]rankers.SignalHit
	Snippet   string
	LineStart int
	LineEnd   int
	AgeDays   int
	Stale     bool
	// Blend holds the parts of a recency/importance-blended Score (nil
	// when both weights are 0).
	Blend *Blend
	// ResultType is "note" or "memory"; MemoryKey is a memory's key.
	ResultType string
	MemoryKey  string
	// Passages are the note's best chunks (only with MaxPassages).
	Passages []Passage
}

// Search runs the pipeline. Invalid requests return an error wrapping
// ErrInvalid.
func (e *Engine) Search(ctx context.Context, req Request) (*Result, error) {
	filter, err := req.normalize()
	if err != nil {
		return nil, err
	}
	if err := e.checkBlendWeights(req); err != nil {
		return nil, err
	}
	pg, err := e.openPage(req)
	if err != nil {
		return nil, err
	}
	list, err := e.fusedFor(ctx, req, filter, pg)
	if err != nil {
		return nil, err
	}
	res := &Result{Query: req.Query, K: e.opts.RRFK, SignalsUsed: list.signalsUsed, SignalErrors: list.signalErrors,
		TotalCandidates: len(list.fused)}
	fused := pg.cut(list.fused, req.Limit, res)
	annotate(fused, list.observed)
	res.Hits = make([]Hit, len(fused))
	for i, f := range fused {
		res.Hits[i] = e.hit(f, req)
		res.Hits[i].ResultType, res.Hits[i].MemoryKey = MemoryOf(e.snap.Notes[f.Note])
		res.Hits[i].Blend = list.blend[[2]int{f.Note, f.Chunk}]
	}
	e.addPassages(ctx, req, res)
	e.addRelated(req, list.allow, res)
	return res, ctx.Err()
}

// fused is a search's fused list before the cut to a page, with what the
// signals reported: what a cursor's next page is cut from.
type fusedList struct {
	fused        []rankers.Fused
	observed     []rankers.Ranked
	signalsUsed  []string
	signalErrors map[string]string
	allow        func(int) bool
	// blend holds each candidate's recency/importance parts by note and
	// chunk (nil when both weights are 0).
	blend map[[2]int]*Blend
}

// rankedLists are a search's signal lists and their fusion, before
// min_signals, the graph boost, the blend and the reranker.
type rankedLists struct {
	allow            func(int) bool
	res              *Result // signals used and their errors
	fusing, observed []rankers.Ranked
	fused            []rankers.Fused
}

// rankAndFuse runs filters → rankers → fusion → feedback: the fused
// signals' lists (feedback's included), the zero-weight signals' lists,
// and the fusion.
func (e *Engine) rankAndFuse(ctx context.Context, req Request, filter FrontmatterFilter) (*rankedLists, error) {
	allow := e.allow(req.Folder, strings.TrimPrefix(strings.TrimSpace(req.Tag), "#"), filter)
	allow = e.allowTypes(allow, req.Types)
	allow = e.allowObsidian(allow, req.IncludeExcluded)
	res := &Result{}
	lists, err := e.rank(ctx, req, allow, res)
	if err != nil {
		return nil, err
	}
	weights := e.Weights()
	maps.Copy(weights, req.Weights) // a request's weights override per signal
	if e.englishOnly() && mostlyCJK(req.Query) {
		weights[rankers.SignalEmbeddings] = 0 // it still reports its ranks
	}
	fusing, observed := splitByWeight(lists, weights)
	if len(fusing) == 0 { // only zero-weight signals asked for: they rank
		fusing, observed, weights = observed, nil, nil
	}
	// Proximity and feedback both work from the first pass's lists.
	var second []rankers.Ranked
	if pl, ok := e.proximityList(ctx, req, fusing, weights); ok {
		second = append(second, pl)
	}
	if fb, ok := e.feedback(ctx, req, allow, fusing, weights); ok {
		second = append(second, fb)
	}
	for _, l := range second {
		fusing = append(fusing, l)
		res.SignalsUsed = append(res.SignalsUsed, l.Signal)
	}
	fused := rankers.Fuse(fusing, e.opts.RRFK, weights) // once: feedback needs only the first pass's notes
	return &rankedLists{allow: allow, res: res, fusing: fusing, observed: observed, fused: fused}, nil
}

// fuse runs filters → rankers → fusion → feedback (rankAndFuse) →
// min_signals → graph boost → recency/importance blend → reranker.
func (e *Engine) fuse(ctx context.Context, req Request, filter FrontmatterFilter) (*fusedList, error) {
	rl, err := e.rankAndFuse(ctx, req, filter)
	if err != nil {
		return nil, err
	}
	allow, res, observed, fused := rl.allow, rl.res, rl.observed, rl.fused
	if req.MinSignals > 1 {
		fused = slices.DeleteFunc(fused, func(f rankers.Fused) bool { return independent(f) < req.MinSignals })
	}
	if req.GraphBoost {
		fused = e.graph.Boost(fused, e.boost())
	}
	// The blend decides which candidates reach the reranker's top N; the
	// reranker then orders those, so each hit's parts go with the hit.
	parts := e.blend(fused, req)
	var partOf map[[2]int]*Blend
	if parts != nil {
		partOf = make(map[[2]int]*Blend, len(parts))
		for i := range parts {
			partOf[[2]int{fused[i].Note, fused[i].Chunk}] = &parts[i]
		}
	}
	if e.wantRerank(req) {
		fused = e.rerank(ctx, req, fused, res)
	}
	return &fusedList{fused: fused, observed: observed, signalsUsed: res.SignalsUsed, signalErrors: res.SignalErrors,
		allow: allow, blend: partOf}, nil
}

// splitByWeight separates the lists that are fused from those of signals
// weighted 0, which only annotate the hits (see annotate).
func splitByWeight(lists []rankers.Ranked, weights map[string]float64) (fusing, observed []rankers.Ranked) {
	for _, l := range lists {
		if w, ok := weights[l.Signal]; ok && w == 0 {
			observed = append(observed, l)
		} else {
			fusing = append(fusing, l)
		}
	}
	return fusing, observed
}

// annotate adds the rank and score a zero-weight signal gave each hit to
// its per-signal record. Such a signal adds no hit and no score, and plays
// no part in min_signals, tie-breaks or the graph boost: it is shown, not
// counted.
func annotate(hits []rankers.Fused, observed []rankers.Ranked) {
	for _, l := range observed {
		type key struct{ note, chunk int }
		at := make(map[key]rankers.SignalHit, len(l.Candidates))
		for r, c := range l.Candidates {
			if _, dup := at[key{c.Note, c.Chunk}]; !dup {
				at[key{c.Note, c.Chunk}] = rankers.SignalHit{Rank: r + 1, Score: c.Score}
			}
		}
		for i := range hits {
			if h, ok := at[key{hits[i].Note, hits[i].Chunk}]; ok {
				signals := maps.Clone(hits[i].Signals)
				signals[l.Signal] = h
				hits[i].Signals = signals
			}
		}
	}
}

// Weights are the RRF weights searches use unless a request brings its
// own: Options.Weights over DefaultWeights.
func (e *Engine) Weights() map[string]float64 {
	w := DefaultWeights(e.embedderID())
	maps.Copy(w, e.opts.Weights)
	return w
}

// BM25Params are the k1 and b BM25 scores with: Options.BM25 when set,
// else rankers.BM25K1 and rankers.BM25B.
func (e *Engine) BM25Params() index.BM25Params {
	if e.opts.BM25 != (index.BM25Params{}) {
		return e.opts.BM25
	}
	return index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}
}

// boost is Options.Boost, else the default for the engine's model.
func (e *Engine) boost() graph.BoostOptions {
	if e.opts.Boost != (graph.BoostOptions{}) {
		return e.opts.Boost
	}
	return DefaultBoost(e.embedderID())
}

// englishOnly reports whether the engine's dense model is trained on
// English alone (embed.EnglishOnly).
func (e *Engine) englishOnly() bool {
	m, ok := e.opts.Embedder.(embed.EnglishOnly)
	return ok && m.EnglishOnly()
}

func (e *Engine) embedderID() string {
	if emb := e.dense(); emb != nil {
		return emb.Model().ID
	}
	return ""
}

// allow builds the note predicate for folder, tag and frontmatter filters
// (nil when there are none).
func (e *Engine) allow(folder, tag string, filter FrontmatterFilter) func(int) bool {
	if folder == "" && tag == "" && len(filter) == 0 {
		return nil
	}
	ok := make([]bool, len(e.snap.Notes))
	for i, n := range e.snap.Notes {
		ok[i] = InFolder(n.Path, folder) && (tag == "" || n.HasTag(tag)) && filter.Match(n)
	}
	return func(i int) bool { return ok[i] }
}

// rank runs the wanted signals concurrently. A failing signal is reported
// in res.SignalErrors and left out; only when every signal fails is the
// search an error.
func (e *Engine) rank(ctx context.Context, req Request, allow func(int) bool, res *Result) ([]rankers.Ranked, error) {
	depth := e.depth(req)
	var use []rankers.Ranker
	for _, r := range e.rankers {
		if req.Signals == nil || slices.Contains(req.Signals, r.Name()) {
			use = append(use, r)
		}
	}
	for _, s := range req.Signals {
		if s == rankers.SignalFeedback {
			continue // a second pass over the fused lists (see feedback)
		}
		if !slices.ContainsFunc(use, func(r rankers.Ranker) bool { return r.Name() == s }) {
			res.addSignalError(s, "unavailable: "+unavailableReason(s))
		}
	}
	if req.EmbeddingModel != "" && !slices.ContainsFunc(e.rankers, func(r rankers.Ranker) bool { return r.Name() == rankers.SignalEmbeddings }) {
		// Nothing can check the name against vectors that do not exist;
		// saying so beats ignoring it silently.
		res.addSignalError(rankers.SignalEmbeddings, fmt.Sprintf("embedding_model %.100q not checked and not used: %s", req.EmbeddingModel, unavailableReason(rankers.SignalEmbeddings)))
	}
	lists, errs := e.runRankers(ctx, use, rankers.Request{Query: req.Query, Allow: allow, BM25: e.BM25Params(),
		Block: req.Granularity == GranularityBlock, EmbeddingModel: req.EmbeddingModel, MinSimilarity: req.MinSimilarity}, depth)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ok []rankers.Ranked
	for i, l := range lists {
		var partial *rankers.Partial
		if errors.As(errs[i], &partial) { // worked, but left some out: say so
			res.addSignalError(l.Signal, partial.Msg)
			errs[i] = nil
		}
		if errs[i] != nil {
			if errors.Is(errs[i], ErrInvalid) {
				return nil, errs[i]
			}
			if errors.Is(errs[i], rankers.ErrModelMismatch) {
				return nil, fmt.Errorf("%w: %v", ErrInvalid, errs[i])
			}
			res.addSignalError(l.Signal, errs[i].Error())
			continue
		}
		ok = append(ok, l)
		res.SignalsUsed = append(res.SignalsUsed, l.Signal)
	}
	if len(ok) == 0 && len(use) > 0 {
		return nil, fmt.Errorf("every signal failed: %v", res.SignalErrors)
	}
	return ok, nil
}

// depth is how many candidates each signal contributes.
func (e *Engine) depth(req Request) int {
	if e.opts.Depth > 0 {
		return e.opts.Depth
	}
	return max(100, 5*req.Limit)
}

func unavailableReason(signal string) string {
	switch signal {
	case rankers.SignalBM25:
		return "no persistent index (run `enquire-mcp index` and serve with --persistent-index)"
	case rankers.SignalEmbeddings:
		return "no embeddings (run `enquire-mcp build-embeddings`)"
	}
	return "not configured"
}

func (r *Result) addSignalError(signal, msg string) {
	if r.SignalErrors == nil {
		r.SignalErrors = map[string]string{}
	}
	r.SignalErrors[signal] = msg
}

// hit renders a fused item.
func (e *Engine) hit(f rankers.Fused, req Request) Hit {
	n := e.snap.Notes[f.Note]
	h := Hit{Note: f.Note, Chunk: f.Chunk, Path: n.Path, Title: n.Title, Kind: n.Kind, Score: f.Score, Signals: f.Signals}
	if n.IsDrawing() {
		h.Kind = vault.KindDrawing
	}
	if req.NoSnippets {
		return h
	}
	start, end := 0, len(n.Body)
	if f.Chunk != rankers.NoChunk {
		c := e.chunks[f.Note][f.Chunk]
		start, end = c.Start, c.End
		h.LineStart, h.LineEnd = c.LineStart, c.LineEnd
	} else if best := e.tfidf.BestChunk(req.Query, f.Note); best != rankers.NoChunk {
		// A long note's snippet comes from its best passage, not from
		// whichever lines of the whole body happen to repeat query terms.
		c := e.chunks[f.Note][best]
		start, end = c.Start, c.End
	}
	sn := e.snippet(e.readable(n), start, end, req.Query)
	h.Snippet = sn.text
	if strings.TrimSpace(h.Snippet) == "" {
		h.Snippet = propertiesSnippet(n.Frontmatter) // a note that is only properties
	}
	if f.Chunk == rankers.NoChunk {
		h.LineStart, h.LineEnd = sn.lineStart, sn.lineEnd
	}
	if n.Kind == vault.KindPDF {
		// Lines of extracted text mean nothing to a reader; pages do.
		h.Page = n.PageAt(h.LineStart)
		h.OCR = n.PageOCR(h.Page)
		h.Snippet = fmt.Sprintf("[page: %d] %s", h.Page, h.Snippet)
		h.LineStart, h.LineEnd = 0, 0
	}
	h.AgeDays = e.ageDays(n)
	h.Stale = h.AgeDays >= e.opts.StaleDays
	return h
}

// ageDays counts whole days since the file's live modification time (the
// snapshot's time if the file is gone), looked up through the vault
// handle so that it never describes a file outside the vault.
func (e *Engine) ageDays(n *vault.Note) int {
	return max(0, int(e.opts.Now().Sub(e.modTime(n))/(24*time.Hour)))
}

// modTime is the file's live modification time (the snapshot's if the
// file is gone): the one source of age_days and recency.
func (e *Engine) modTime(n *vault.Note) time.Time {
	if fsys, err := e.snap.Files(); err == nil {
		if info, err := fsys.Stat(n.Path); err == nil {
			return info.ModTime()
		}
	}
	return n.ModTime
}
