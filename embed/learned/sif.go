package learned

import (
	"context"
	"math"

	"github.com/enquire-mcp/enquire-mcp/embed/static"
)

// sifA is SIF's smoothing constant a in the weight a/(a+p(w)) (Arora,
// Liang and Ma, 2017, recommend 1e-3 to 1e-4).
const sifA = 1e-3

// vectors turns the SVD's word rows (len(words)×dim) into a quantised
// static table: rows unit length, SIF weights from the term frequencies,
// and the texts' first principal component for removal.
func (c *corpus) vectors(ctx context.Context, rows []float64, dim int) (*static.Vectors, error) {
	n := len(c.words)
	t := static.Table{Dim: dim, Rows: n, Vectors: make([]int8, n*dim), Scales: make([]float32, n), Weights: make([]float32, n)}
	unit := make([]float32, n*dim)
	for r := 0; r < n; r++ {
		src := rows[r*dim : (r+1)*dim]
		var norm float64
		for _, x := range src {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		dst := unit[r*dim : (r+1)*dim]
		for i, x := range src {
			if norm > 0 {
				dst[i] = float32(x / norm)
			}
		}
		t.Scales[r] = static.Quantize(t.Vectors[r*dim:(r+1)*dim], dst)
		t.Weights[r] = float32(sifA / (sifA + float64(c.counts[r])/float64(c.total)))
	}
	comp, err := c.component(ctx, unit, t.Weights, dim)
	if err != nil {
		return nil, err
	}
	return &static.Vectors{Words: c.words, Table: t, Component: comp}, nil
}

// component returns the first principal (uncentred) direction of the
// texts' unit SIF vectors, by power iteration on their dim×dim scatter
// matrix; nil when no text has a vector.
func (c *corpus) component(ctx context.Context, unit []float32, weights []float32, dim int) ([]float32, error) {
	scatter := make([]float64, dim*dim)
	v := make([]float64, dim)
	seen := 0
	for i, doc := range c.docs {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(doc) == 0 {
			continue
		}
		clear(v)
		for _, id := range doc {
			w := float64(weights[id])
			for j, x := range unit[int(id)*dim : (int(id)+1)*dim] {
				v[j] += w * float64(x)
			}
		}
		if !normalize64(v) {
			continue
		}
		seen++
		for a, x := range v {
			row := scatter[a*dim : (a+1)*dim]
			for b, y := range v {
				row[b] += x * y
			}
		}
	}
	if seen == 0 {
		return nil, nil
	}
	u := make([]float64, dim)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(dim))
	}
	next := make([]float64, dim)
	for it := 0; it < 100; it++ {
		for a := range next {
			var s float64
			for b, y := range u {
				s += scatter[a*dim+b] * y
			}
			next[a] = s
		}
		if !normalize64(next) {
			return nil, nil
		}
		u, next = next, u
	}
	out := make([]float32, dim)
	for i, x := range u {
		out[i] = float32(x)
	}
	return out, nil
}

// normalize64 scales v to unit length; false (and v unchanged) for a
// zero or non-finite vector.
func normalize64(v []float64) bool {
	var s float64
	for _, x := range v {
		s += x * x
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return false
	}
	s = 1 / math.Sqrt(s)
	for i := range v {
		v[i] *= s
	}
	return true
}
