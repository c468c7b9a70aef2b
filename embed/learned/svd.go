package learned

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
)

// csr is a square sparse symmetric matrix in compressed-row form.
type csr struct {
	n      int
	rowPtr []int
	cols   []int32
	vals   []float32
}

// mulDense writes A·X into y (len n·l, overwritten) for X of n rows and l
// columns (row-major). Rows are computed in parallel; each row's sum runs
// in column order, so the result does not depend on the number of
// goroutines.
func (a *csr) mulDense(ctx context.Context, x, y []float64, l int) error {
	clear(y)
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	var wg sync.WaitGroup
	step := (a.n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*step, min(a.n, (w+1)*step)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := lo; r < hi; r++ {
				dst := y[r*l : (r+1)*l]
				for p := a.rowPtr[r]; p < a.rowPtr[r+1]; p++ {
					v, src := float64(a.vals[p]), x[int(a.cols[p])*l:(int(a.cols[p])+1)*l]
					for j, s := range src {
						dst[j] += v * s
					}
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// orthonormalize makes the l columns of the n×l row-major matrix x
// orthonormal in place (modified Gram-Schmidt, twice for stability, on a
// transposed copy in t, len n·l, so every column is contiguous). A column
// that vanishes is left zero.
func orthonormalize(x, t []float64, n, l int) {
	for r := 0; r < n; r++ {
		for j := 0; j < l; j++ {
			t[j*n+r] = x[r*l+j]
		}
	}
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < l; j++ {
			cj := t[j*n : (j+1)*n]
			for k := 0; k < j; k++ {
				ck := t[k*n : (k+1)*n]
				var dot float64
				for r, v := range ck {
					dot += v * cj[r]
				}
				for r, v := range ck {
					cj[r] -= dot * v
				}
			}
			var norm float64
			for _, v := range cj {
				norm += v * v
			}
			norm = math.Sqrt(norm)
			for r := range cj {
				if norm > 1e-12 {
					cj[r] /= norm
				} else {
					cj[r] = 0
				}
			}
		}
	}
	for r := 0; r < n; r++ {
		for j := 0; j < l; j++ {
			x[r*l+j] = t[j*n+r]
		}
	}
}

// topSingular returns the k leading left singular vectors of the
// symmetric matrix a, scaled by their singular values raised to power
// (n×k, row-major), by randomized range finding (Halko, Martinsson and
// Tropp, 2011) with iters power iterations. The random start comes from
// seed, so equal inputs give equal outputs.
func topSingular(ctx context.Context, a *csr, k, oversample, iters int, power float64, seed uint64) ([]float64, error) {
	n := a.n
	l := min(n, k+oversample)
	if n == 0 || l == 0 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	q := make([]float64, n*l)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	// Three n×l buffers serve every step: a large vocabulary makes each
	// tens of megabytes.
	y, scratch := make([]float64, n*l), make([]float64, n*l)
	for it := 0; it <= iters; it++ {
		if err := a.mulDense(ctx, q, y, l); err != nil {
			return nil, fmt.Errorf("learned: svd: %w", err)
		}
		q, y = y, q
		orthonormalize(q, scratch, n, l)
	}
	// B = Qᵀ·A (l×n) = (A·Q)ᵀ as A is symmetric; B·Bᵀ = (AQ)ᵀ(AQ).
	aq := y
	if err := a.mulDense(ctx, q, aq, l); err != nil {
		return nil, fmt.Errorf("learned: svd: %w", err)
	}
	gram := make([]float64, l*l)
	for r := 0; r < n; r++ {
		row := aq[r*l : (r+1)*l]
		for i, x := range row {
			if x == 0 {
				continue
			}
			g := gram[i*l : (i+1)*l]
			for j, y := range row {
				g[j] += x * y
			}
		}
	}
	vals, vecs := jacobiEigen(gram, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return vals[order[i]] > vals[order[j]] })
	k = min(k, l)
	out := make([]float64, n*k)
	for c := 0; c < k; c++ {
		e := order[c]
		s := math.Sqrt(max(vals[e], 0))
		scale := math.Pow(s, power)
		for r := 0; r < n; r++ {
			var sum float64
			qr := q[r*l : (r+1)*l]
			for i, x := range qr {
				sum += x * vecs[i*l+e]
			}
			out[r*k+c] = sum * scale
		}
	}
	return out, nil
}

// jacobiEigen diagonalises the symmetric l×l matrix a (destroyed) by
// cyclic Jacobi rotations; it returns the eigenvalues and the
// eigenvectors as the columns of an l×l matrix.
func jacobiEigen(a []float64, l int) ([]float64, []float64) {
	v := make([]float64, l*l)
	for i := 0; i < l; i++ {
		v[i*l+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		var off float64
		for i := 0; i < l; i++ {
			for j := i + 1; j < l; j++ {
				off += a[i*l+j] * a[i*l+j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := 0; p < l; p++ {
			for q := p + 1; q < l; q++ {
				apq := a[p*l+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*l+q] - a[p*l+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				rotate(a, v, l, p, q, c, s)
			}
		}
	}
	vals := make([]float64, l)
	for i := range vals {
		vals[i] = a[i*l+i]
	}
	return vals, v
}

// rotate applies the Jacobi rotation (p, q, c, s) to a (both sides) and
// accumulates it into v.
func rotate(a, v []float64, l, p, q int, c, s float64) {
	for k := 0; k < l; k++ {
		akp, akq := a[k*l+p], a[k*l+q]
		a[k*l+p] = c*akp - s*akq
		a[k*l+q] = s*akp + c*akq
	}
	for k := 0; k < l; k++ {
		apk, aqk := a[p*l+k], a[q*l+k]
		a[p*l+k] = c*apk - s*aqk
		a[q*l+k] = s*apk + c*aqk
	}
	for k := 0; k < l; k++ {
		vkp, vkq := v[k*l+p], v[k*l+q]
		v[k*l+p] = c*vkp - s*vkq
		v[k*l+q] = s*vkp + c*vkq
	}
}
