package bert

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernels multiplies random matrices of odd sizes (rows and columns
// that are not multiples of the 6×16 block, k from 1) with every kernel
// this CPU runs, serial and parallel, against a float64 product.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	ks := kernels()
	if len(ks) < 2 {
		t.Logf("only the %s kernel runs on this CPU", ks[0].name)
	}
	for _, sz := range [][3]int{{1, 1, 1}, {6, 16, 1}, {5, 17, 3}, {7, 33, 29}, {13, 40, 64}, {61, 100, 7}, {100, 48, 383}, {6, 16, 1537}} {
		m, n, k := sz[0], sz[1], sz[2]
		// A and C have row strides past their widths, as in attention.
		lda, ldc := k+3, n+5
		a, b, bias := rnd(m*lda), rnd(k*n), rnd(n)
		want := make([]float64, m*n)
		for i := range m {
			for j := range n {
				s := float64(bias[j])
				for p := range k {
					s += float64(a[i*lda+p]) * float64(b[p*n+j])
				}
				want[i*n+j] = s
			}
		}
		bp := pack(b, k, n)
		for _, kern := range ks {
			for _, par := range []bool{false, true} {
				c := make([]float32, m*ldc)
				for i := range m {
					copy(c[i*ldc:], bias)
					c[i*ldc+n] = 12345 // past the row: must stay
				}
				if par {
					matmulPar(kern.f, c, ldc, a, lda, m, bp)
				} else {
					matmul(kern.f, c, ldc, a, lda, m, bp)
				}
				for i := range m {
					if c[i*ldc+n] != 12345 {
						t.Fatalf("%s %dx%dx%d: wrote past row %d", kern.name, m, n, k, i)
					}
					for j := range n {
						// float32 sums of k terms of size ~1.
						if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); d > 1e-5*float64(k+1) {
							t.Fatalf("%s (parallel %v) %dx%dx%d: C[%d][%d] = %g, want %g", kern.name, par, m, n, k, i, j, c[i*ldc+j], want[i*n+j])
						}
					}
				}
			}
		}
	}
}

// TestKernelsMatchGo runs every assembly micro-kernel against the
// plain-Go one: called directly on every block height (1 to 6 rows)
// and every k tail (k mod 4 and mod 8), then through matmul and
// matmulPar on odd and seeded random shapes. A and C have row strides
// past their widths, and C starts nonzero: the kernel adds to it.
func TestKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	// close is within float32 rounding of k products of size ~1: the
	// kernels differ from plain Go only by fused multiply-adds.
	close := func(got, want float32, k int) bool {
		return math.Abs(float64(got)-float64(want)) <= 1e-5*float64(k+1)
	}
	var fast []namedKernel
	for _, k := range kernels() {
		if k.name != goKernel.name {
			fast = append(fast, k)
		}
	}
	if len(fast) == 0 {
		t.Skipf("no assembly kernel on this CPU (%v)", Kernels())
	}
	for _, kern := range fast {
		for rows := 1; rows <= mr; rows++ {
			for _, k := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 31, 64, 385} {
				lda, ldc := k+rng.IntN(3), nr+1+rng.IntN(3)
				a, bp := rnd(rows*lda), rnd(k*nr)
				c0 := rnd(mr * ldc)
				want := append([]float32(nil), c0...)
				got := append([]float32(nil), c0...)
				kernelGo(k, a, lda, bp, want, ldc, rows)
				kern.f(k, a, lda, bp, got, ldc, rows)
				for i := range got {
					r, col := i/ldc, i%ldc
					if r >= rows || col >= nr {
						if got[i] != c0[i] {
							t.Fatalf("%s rows=%d k=%d: wrote C[%d][%d] outside the block", kern.name, rows, k, r, col)
						}
					} else if !close(got[i], want[i], k) {
						t.Fatalf("%s rows=%d k=%d: C[%d][%d] = %g, plain Go %g", kern.name, rows, k, r, col, got[i], want[i])
					}
				}
			}
		}
	}
	shapes := [][3]int{{1, 1, 1}, {1, 16, 4}, {5, 15, 3}, {6, 17, 5}, {7, 31, 9}, {11, 47, 13}, {13, 40, 64}, {23, 384, 1}, {10, 10, 1536}}
	for range 12 {
		shapes = append(shapes, [3]int{1 + rng.IntN(70), 1 + rng.IntN(100), 1 + rng.IntN(130)})
	}
	for _, sz := range shapes {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldc := k+1+rng.IntN(4), n+rng.IntN(4)
		a, b, c0 := rnd(m*lda), rnd(k*n), rnd(m*ldc)
		bp := pack(b, k, n)
		want := append([]float32(nil), c0...)
		matmul(goKernel.f, want, ldc, a, lda, m, bp)
		for _, kern := range fast {
			for _, par := range []bool{false, true} {
				got := append([]float32(nil), c0...)
				if par {
					matmulPar(kern.f, got, ldc, a, lda, m, bp)
				} else {
					matmul(kern.f, got, ldc, a, lda, m, bp)
				}
				for i := range got {
					if i%ldc >= n && got[i] != c0[i] {
						t.Fatalf("%s (parallel %v) %dx%dx%d: wrote C[%d][%d] past the row", kern.name, par, m, n, k, i/ldc, i%ldc)
					}
					if !close(got[i], want[i], k) {
						t.Fatalf("%s (parallel %v) %dx%dx%d: C[%d][%d] = %g, plain Go %g", kern.name, par, m, n, k, i/ldc, i%ldc, got[i], want[i])
					}
				}
			}
		}
	}
}
