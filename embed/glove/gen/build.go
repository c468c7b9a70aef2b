package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// maxWordBytes matches the glove tokenizer, which drops longer tokens.
const maxWordBytes = 64

// config holds the generator's choices.
type config struct {
	sha256    string
	rows      int     // words kept
	a         float64 // SIF parameter
	vocab     int     // full GloVe vocabulary size, for H
	component string  // "none", "mean" or "pc"
}

func (c config) check() error {
	switch {
	case c.rows <= 0:
		return fmt.Errorf("-rows %d: must be positive", c.rows)
	case !(c.a > 0) || math.IsInf(c.a, 0):
		return fmt.Errorf("-a %v: must be positive", c.a)
	case c.vocab < c.rows:
		return fmt.Errorf("-vocab %d: smaller than -rows %d", c.vocab, c.rows)
	case c.component != "none" && c.component != "mean" && c.component != "pc":
		return fmt.Errorf("-component %q: want none, mean or pc", c.component)
	}
	return nil
}

// keepWord accepts exactly the tokens the glove tokenizer can look up:
// lower-case ASCII letters and digits, with single inner hyphens ("e-mail",
// "mid-1990s"). Punctuation tokens ("," "(" "$" …), among the most
// frequent in GloVe, are dropped: the tokenizer never produces them, and
// SIF would weigh them near zero anyway. The source has no apostrophe,
// dotted ("u.s.") or number-only tokens, and no non-ASCII words.
func keepWord(w string) bool {
	if w == "" || len(w) > maxWordBytes || w[0] == '-' || w[len(w)-1] == '-' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && w[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

func sortByRank(words []word) {
	slices.SortFunc(words, func(x, y word) int { return x.rank - y.rank })
}

// harmonic returns H(n) = 1 + 1/2 + … + 1/n, summed smallest first.
func harmonic(n int) float64 {
	var h float64
	for k := n; k >= 1; k-- {
		h += 1 / float64(k)
	}
	return h
}

// zipfProb estimates the unigram probability of the word of 0-based rank
// r from Zipf's law: p = 1/((r+1)·H(vocab)).
func zipfProb(r int, h float64) float64 { return 1 / (float64(r+1) * h) }

// build keeps the cfg.rows most frequent words (words is in rank order),
// quantises them and computes their SIF weights and, if asked, the common
// component.
func build(words []word, cfg config) (*static.Vectors, error) {
	if len(words) < cfg.rows {
		return nil, fmt.Errorf("only %d usable words, -rows asks for %d", len(words), cfg.rows)
	}
	words = words[:cfg.rows]
	h := harmonic(cfg.vocab)
	v := &static.Vectors{
		Words: make([]string, cfg.rows),
		Table: static.Table{
			Dim: dims, Rows: cfg.rows,
			Vectors: make([]int8, cfg.rows*dims),
			Scales:  make([]float32, cfg.rows),
			Weights: make([]float32, cfg.rows),
		},
	}
	for r, w := range words {
		v.Words[r] = w.text
		v.Table.Scales[r] = static.Quantize(v.Table.Vectors[r*dims:(r+1)*dims], w.vec)
		p := zipfProb(w.rank, h)
		v.Table.Weights[r] = float32(cfg.a / (cfg.a + p))
	}
	switch cfg.component {
	case "mean":
		v.Component = meanComponent(&v.Table, words, h)
	case "pc":
		v.Component = principalComponent(&v.Table, words, h)
	}
	return v, nil
}

// weightedRows calls fn with every row dequantised, times its SIF weight,
// and its estimated probability: how the row enters text vectors, and how
// often.
func weightedRows(t *static.Table, words []word, h float64, fn func(x []float64, p float64)) {
	var row []float32
	x := make([]float64, t.Dim)
	for r, w := range words {
		row = dequantize(row, t, r)
		for i, f := range row {
			x[i] = float64(float64(f) * float64(t.Weights[r]))
		}
		fn(x, zipfProb(w.rank, h))
	}
}

// meanComponent is the direction of the expected SIF-weighted word
// vector, Σ p(w)·weight(w)·v(w): the direction every long text vector
// drifts towards.
func meanComponent(t *static.Table, words []word, h float64) []float32 {
	mu := make([]float64, t.Dim)
	weightedRows(t, words, h, func(x []float64, p float64) {
		for i, xi := range x {
			mu[i] += float64(p * xi) // explicit conversion: no fused multiply-add, same bytes on every platform
		}
	})
	return unit(mu)
}

// principalComponent is the first eigenvector of the uncentred second
// moment Σ p(w)·x(w)x(w)ᵀ of the SIF-weighted word vectors x(w), found by
// power iteration from the mean direction.
func principalComponent(t *static.Table, words []word, h float64) []float32 {
	d := t.Dim
	m := make([]float64, d*d)
	weightedRows(t, words, h, func(x []float64, p float64) {
		for i, xi := range x {
			pxi := float64(p * xi)
			for j, xj := range x {
				m[i*d+j] += float64(pxi * xj)
			}
		}
	})
	v := make([]float64, d)
	for i := range v {
		v[i] = 1
	}
	next := make([]float64, d)
	for range 1000 {
		for i := range next {
			var s float64
			for j, vj := range v {
				s += float64(m[i*d+j] * vj)
			}
			next[i] = s
		}
		norm := l2(next)
		var delta float64
		for i := range v {
			x := next[i] / norm
			delta = math.Max(delta, math.Abs(x-v[i]))
			v[i] = x
		}
		if delta < 1e-12 {
			break
		}
	}
	return unit(v)
}

// unit returns v normalised as float32, its largest-magnitude entry
// positive (the sign of a component does not matter; fixing it keeps the
// output stable).
func unit(v []float64) []float32 {
	n := l2(v)
	big := 0
	for i := range v {
		if math.Abs(v[i]) > math.Abs(v[big]) {
			big = i
		}
	}
	if v[big] < 0 {
		n = -n
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

func l2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	return math.Sqrt(s)
}

// quantisationError compares every kept row with its source vector: the
// mean and the smallest cosine similarity.
func quantisationError(v *static.Vectors, words []word) (mean, least float64) {
	least = 1
	var row []float32
	for r := range v.Table.Rows {
		row = dequantize(row, &v.Table, r)
		var dot, a, b float64
		for i, x := range words[r].vec {
			dot += float64(x) * float64(row[i])
			a += float64(x) * float64(x)
			b += float64(row[i]) * float64(row[i])
		}
		c := dot / math.Sqrt(a*b)
		mean += c
		least = math.Min(least, c)
	}
	return mean / float64(v.Table.Rows), least
}

// dequantize returns row r of t as float32 into dst (grown if needed),
// without its weight.
func dequantize(dst []float32, t *static.Table, r int) []float32 {
	dst = slices.Grow(dst[:0], t.Dim)[:t.Dim]
	s := t.Scales[r]
	for i, q := range t.Vectors[r*t.Dim : (r+1)*t.Dim] {
		dst[i] = float32(q) * s
	}
	return dst
}
