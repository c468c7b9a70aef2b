package learned

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// Options tune [Learn]. The zero value of a field means its default.
type Options struct {
	// Dim is the vector dimension (default 128).
	Dim int
	// Window is how many terms on each side count as context (default 5).
	Window int
	// MinCount drops terms seen fewer times (default 2).
	MinCount int
	// MaxVocab keeps the most frequent terms only (default 40,000).
	MaxVocab int
	// Power raises the singular values that scale the vectors (default
	// 0.5; Levy, Goldberg and Dagan, 2015, found 0–0.5 best).
	Power float64
	// Iters is the number of power iterations of the SVD (default 2).
	Iters int
	// Seed makes the random projection of the SVD reproducible.
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.Dim <= 0 {
		o.Dim = 128
	}
	if o.Window <= 0 {
		o.Window = 5
	}
	if o.MinCount <= 0 {
		o.MinCount = 2
	}
	if o.MaxVocab <= 0 {
		o.MaxVocab = 40000
	}
	if o.Power == 0 {
		o.Power = 0.5
	}
	if o.Iters <= 0 {
		o.Iters = 2
	}
	if o.Seed == 0 {
		o.Seed = 12
	}
	return o
}

// ErrTooSmall is returned when the texts hold too few repeated terms to
// learn anything from.
var ErrTooSmall = errors.New("learned: too little text to learn word vectors")

// corpus is the texts as term ids, with the vocabulary.
type corpus struct {
	words  []string // id → term, most frequent first
	counts []int64
	total  int64
	docs   [][]int32 // per text, its in-vocabulary term ids in order
}

// Learn fits word vectors to texts: terms (as an analyses them for
// queries) co-occurring within a window are counted, the counts turned
// into positive pointwise mutual information (context distribution
// smoothed with exponent 0.75), and the PPMI matrix reduced to opts.Dim
// dimensions by randomized truncated SVD. Texts are then embedded with
// SIF weights, and their first principal component is stored for
// removal. The result depends only on texts and opts.
func Learn(ctx context.Context, texts []string, an *analysis.Analyzer, opts Options) (*static.Vectors, error) {
	opts = opts.withDefaults()
	c := tokenize(texts, an, opts)
	if len(c.words) < 2 {
		return nil, fmt.Errorf("%w (%d distinct terms seen at least %d times)", ErrTooSmall, len(c.words), opts.MinCount)
	}
	m := c.ppmi(opts.Window)
	vecs, err := topSingular(ctx, m, opts.Dim, 10, opts.Iters, opts.Power, opts.Seed)
	if err != nil {
		return nil, err
	}
	return c.vectors(ctx, vecs, len(vecs)/len(c.words)) // the SVD may keep fewer than opts.Dim
}

// tokenize maps texts to term ids and keeps the vocabulary opts allows.
func tokenize(texts []string, an *analysis.Analyzer, opts Options) *corpus {
	ids := map[string]int32{}
	var words []string
	var counts []int64
	raw := make([][]int32, len(texts))
	for i, t := range texts {
		var doc []int32
		an.Each(t, analysis.Query, func(term string, _, _ int) {
			id, ok := ids[term]
			if !ok {
				id = int32(len(words))
				term = strings.Clone(term)
				ids[term] = id
				words = append(words, term)
				counts = append(counts, 0)
			}
			counts[id]++
			doc = append(doc, id)
		})
		raw[i] = doc
	}
	keep := make([]int32, 0, len(words))
	for id, n := range counts {
		if n >= int64(opts.MinCount) {
			keep = append(keep, int32(id))
		}
	}
	slices.SortFunc(keep, func(a, b int32) int {
		if counts[a] != counts[b] {
			if counts[a] > counts[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(words[a], words[b])
	})
	if len(keep) > opts.MaxVocab {
		keep = keep[:opts.MaxVocab]
	}
	remap := make([]int32, len(words))
	for i := range remap {
		remap[i] = -1
	}
	c := &corpus{}
	for nid, id := range keep {
		remap[id] = int32(nid)
		c.words = append(c.words, words[id])
		c.counts = append(c.counts, counts[id])
		c.total += counts[id]
	}
	c.docs = make([][]int32, len(raw))
	for i, doc := range raw {
		out := doc[:0]
		for _, id := range doc {
			if r := remap[id]; r >= 0 {
				out = append(out, r)
			}
		}
		c.docs[i] = out
	}
	return c
}

// ppmi counts co-occurrences within window (weighted 1/distance) and
// returns the symmetric positive PMI matrix.
func (c *corpus) ppmi(window int) *csr {
	n := len(c.words)
	pairs := map[uint64]float32{}
	for _, doc := range c.docs {
		for i, a := range doc {
			for d := 1; d <= window && i+d < len(doc); d++ {
				b := doc[i+d]
				if a == b {
					continue
				}
				lo, hi := min(a, b), max(a, b)
				pairs[uint64(lo)<<32|uint64(hi)] += 1 / float32(d)
			}
		}
	}
	keys := make([]uint64, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rowSum := make([]float64, n)
	for _, k := range keys {
		v := float64(pairs[k])
		rowSum[k>>32] += v
		rowSum[uint32(k)] += v
	}
	// Context distribution smoothing: P_α(c) = #(c)^0.75 / Σ #(c')^0.75.
	ctx := make([]float64, n)
	var ctxTotal float64
	for i, s := range rowSum {
		ctx[i] = math.Pow(s, 0.75)
		ctxTotal += ctx[i]
	}
	type entry struct {
		col int32
		val float32
	}
	rows := make([][]entry, n)
	for _, k := range keys {
		a, b := int(k>>32), int(uint32(k))
		v := float64(pairs[k])
		// PMI(a,b) = log(P(a,b) / (P(a)·P_α(b))) = log(#(a,b)·Σ_α /
		// (#(a)·#_α(b))) (the pair total cancels), symmetrised by
		// averaging the two directions.
		pab := math.Log(v * ctxTotal / (rowSum[a] * ctx[b]))
		pba := math.Log(v * ctxTotal / (rowSum[b] * ctx[a]))
		pmi := (pab + pba) / 2
		if pmi <= 0 {
			continue
		}
		rows[a] = append(rows[a], entry{int32(b), float32(pmi)})
		rows[b] = append(rows[b], entry{int32(a), float32(pmi)})
	}
	pairs, keys = nil, nil // the counts are not needed any more: let them go
	m := &csr{n: n, rowPtr: make([]int, n+1)}
	for r, row := range rows {
		slices.SortFunc(row, func(x, y entry) int { return int(x.col) - int(y.col) })
		for _, e := range row {
			m.cols = append(m.cols, e.col)
			m.vals = append(m.vals, e.val)
		}
		m.rowPtr[r+1] = len(m.cols)
	}
	return m
}
