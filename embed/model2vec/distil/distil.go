package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"time"
)

// forwardFunc runs an encoder over token-id sequences and returns the
// last hidden states, sequence i's rows being hidden[off[i]*dim :
// off[i+1]*dim] (bert.Encoder.Forward's contract).
type forwardFunc func(seqs [][]int32) (hidden []float32, off []int, err error)

// unusedToken matches BERT's placeholder tokens ([unused0] …), which no
// text produces; model2vec drops them too.
var unusedToken = regexp.MustCompile(`^\[unused\d+\]$`)

// params are the distillation's choices.
type params struct {
	dims  int     // PCA dimensions kept
	sif   float64 // SIF coefficient a: a token weighs a/(a+p(rank))
	batch int     // sequences per forward pass
}

// tokenVectors returns one vector per vocabulary id (rows × dim,
// row-major, float64): the mean of the encoder's output over the three
// positions of [SEP] id [CLS]. That is model2vec's input for a subword
// vocabulary: the token alone, between the special tokens in reversed
// order (its authors report the reversal works better), pooled by a
// plain mean that includes the special positions, with no normalisation.
// Ids for which skip is true get a zero row and are not run.
func tokenVectors(ctx context.Context, fwd forwardFunc, dim int, skip []bool, cls, sep int32, batch int, log io.Writer) ([]float64, error) {
	rows := len(skip)
	out := make([]float64, rows*dim)
	var ids []int32
	for id := range rows {
		if !skip[id] {
			ids = append(ids, int32(id))
		}
	}
	start, last := time.Now(), time.Now()
	seqs := make([][]int32, 0, batch)
	for b := 0; b < len(ids); b += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := ids[b:min(b+batch, len(ids))]
		seqs = seqs[:0]
		for _, id := range part {
			seqs = append(seqs, []int32{sep, id, cls})
		}
		hidden, off, err := fwd(seqs)
		if err != nil {
			return nil, fmt.Errorf("forward pass over ids %d-%d: %w", part[0], part[len(part)-1], err)
		}
		if len(off) != len(seqs)+1 || len(hidden) != off[len(seqs)]*dim {
			return nil, fmt.Errorf("forward pass over ids %d-%d: %d values for %d sequences of width %d", part[0], part[len(part)-1], len(hidden), len(seqs), dim)
		}
		for i, id := range part {
			dst := out[int(id)*dim : (int(id)+1)*dim]
			n := float64(off[i+1] - off[i])
			for t := off[i]; t < off[i+1]; t++ {
				for j, x := range hidden[t*dim : (t+1)*dim] {
					dst[j] += float64(x) / n
				}
			}
		}
		if log != nil && (time.Since(last) > 5*time.Second || b+batch >= len(ids)) {
			last = time.Now()
			done := min(b+batch, len(ids))
			fmt.Fprintf(log, "distil: %d/%d tokens encoded, %s\n", done, len(ids), time.Since(start).Round(time.Second))
		}
	}
	return out, nil
}

// pca projects the rows not skipped onto their top k principal
// components (centred on their mean, as model2vec's PCA does); skipped
// rows stay zero. Each component's sign is fixed so that its largest
// coordinate is positive, so the output does not depend on the
// eigen-solver's sign choices.
func pca(x []float64, dim int, skip []bool, k int) ([]float32, error) {
	rows := len(skip)
	if k <= 0 || k > dim {
		return nil, fmt.Errorf("pca: %d components of %d dimensions", k, dim)
	}
	mean := make([]float64, dim)
	n := 0
	for r := range rows {
		if skip[r] {
			continue
		}
		n++
		for j, v := range x[r*dim : (r+1)*dim] {
			mean[j] += v
		}
	}
	if n <= k {
		return nil, fmt.Errorf("pca: %d rows for %d components", n, k)
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	cov := make([]float64, dim*dim)
	c := make([]float64, dim)
	for r := range rows {
		if skip[r] {
			continue
		}
		for j, v := range x[r*dim : (r+1)*dim] {
			c[j] = v - mean[j]
		}
		for i := range dim {
			ci := c[i]
			row := cov[i*dim : (i+1)*dim]
			for j := i; j < dim; j++ {
				row[j] += ci * c[j]
			}
		}
	}
	for i := range dim {
		for j := i + 1; j < dim; j++ {
			cov[j*dim+i] = cov[i*dim+j]
		}
	}
	vals, vecs := jacobiEigen(cov, dim)
	order := make([]int, dim)
	for i := range order {
		order[i] = i
	}
	// Insertion sort by eigenvalue, descending; ties keep index order.
	for i := 1; i < dim; i++ {
		for j := i; j > 0 && vals[order[j]] > vals[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	comp := make([]float64, k*dim) // component i is comp[i*dim:(i+1)*dim]
	for i := range k {
		col := order[i]
		dst := comp[i*dim : (i+1)*dim]
		big := 0
		for j := range dim {
			dst[j] = vecs[j*dim+col]
			if math.Abs(dst[j]) > math.Abs(dst[big]) {
				big = j
			}
		}
		if dst[big] < 0 {
			for j := range dst {
				dst[j] = -dst[j]
			}
		}
	}
	out := make([]float32, rows*k)
	for r := range rows {
		if skip[r] {
			continue
		}
		for j, v := range x[r*dim : (r+1)*dim] {
			c[j] = v - mean[j]
		}
		for i := range k {
			var s float64
			for j, v := range comp[i*dim : (i+1)*dim] {
				s += v * c[j]
			}
			out[r*k+i] = float32(s)
		}
	}
	return out, nil
}

// jacobiEigen diagonalises the symmetric n×n matrix a (destroyed) by
// cyclic Jacobi rotations: exact to rounding, and fast enough for an
// encoder's width (a few hundred). It returns the eigenvalues and the
// eigenvectors as the columns of an n×n row-major matrix.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		var off, diag float64
		for i := range n {
			diag += a[i*n+i] * a[i*n+i]
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off <= 1e-30*diag {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for k := range n { // columns p and q
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = cs*akp - sn*akq
					a[k*n+q] = sn*akp + cs*akq
				}
				for k := range n { // rows p and q
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = cs*apk - sn*aqk
					a[q*n+k] = sn*apk + cs*aqk
				}
				for k := range n {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = cs*vkp - sn*vkq
					v[k*n+q] = sn*vkp + cs*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i*n+i]
	}
	return vals, v
}

// applySIF multiplies each kept row by a/(a+p), p estimated from the
// row's rank among the kept rows by Zipf's law, p(r) ∝ 1/(r+2) (r
// 0-based), normalised over the kept rows; this is model2vec's
// weighting. A WordPiece vocabulary is roughly in frequency order after
// its single characters, so the id order stands in for the rank, as in
// model2vec.
func applySIF(x []float32, dim int, skip []bool, a float64) {
	var z float64
	r := 0
	for _, s := range skip {
		if !s {
			z += 1 / float64(r+2)
			r++
		}
	}
	r = 0
	for id, s := range skip {
		if s {
			continue
		}
		p := 1 / (float64(r+2) * z)
		w := float32(a / (a + p))
		for j := range x[id*dim : (id+1)*dim] {
			x[id*dim+j] *= w
		}
		r++
	}
}

// distil runs the whole method: encode every token alone, reduce to
// p.dims with PCA, weight by SIF. vocab[id] is the token string of id
// ("" for an id with no token, which is skipped like [unusedN]).
func distil(ctx context.Context, fwd forwardFunc, dim int, vocab []string, cls, sep int32, p params, log io.Writer) ([]float32, []bool, error) {
	if len(vocab) == 0 {
		return nil, nil, errors.New("empty vocabulary")
	}
	skip := make([]bool, len(vocab))
	for id, tok := range vocab {
		skip[id] = tok == "" || unusedToken.MatchString(tok)
	}
	raw, err := tokenVectors(ctx, fwd, dim, skip, cls, sep, p.batch, log)
	if err != nil {
		return nil, nil, err
	}
	out, err := pca(raw, dim, skip, p.dims)
	if err != nil {
		return nil, nil, err
	}
	if p.sif > 0 {
		applySIF(out, p.dims, skip, p.sif)
	}
	return out, skip, nil
}
