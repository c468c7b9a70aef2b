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
