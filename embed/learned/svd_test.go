package learned

import (
	"context"
	"math"
	"testing"
)

func TestJacobiEigenReconstructs(t *testing.T) {
	tests := [][]float64{
		{2, 1, 1, 3},
		{4, 1, 0, 1, 3, 1, 0, 1, 2},
		{1, 0, 0, 0, -2, 0, 0, 0, 5},
	}
	for _, a := range tests {
		l := int(math.Sqrt(float64(len(a))))
		orig := append([]float64(nil), a...)
		vals, vecs := jacobiEigen(append([]float64(nil), a...), l)
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				var s float64
				for k := 0; k < l; k++ {
					s += vecs[i*l+k] * vals[k] * vecs[j*l+k]
				}
				if math.Abs(s-orig[i*l+j]) > 1e-9 {
					t.Fatalf("%v: V·Λ·Vᵀ[%d,%d] = %v, want %v", orig, i, j, s, orig[i*l+j])
				}
			}
		}
	}
}

func TestTopSingularFindsTheDominantDirection(t *testing.T) {
	// A = 3·u·uᵀ + 1·w·wᵀ with orthonormal u, w over 4 rows.
	u := []float64{0.5, 0.5, 0.5, 0.5}
	w := []float64{0.5, -0.5, 0.5, -0.5}
	m := &csr{n: 4, rowPtr: make([]int, 5)}
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			m.cols = append(m.cols, int32(c))
			m.vals = append(m.vals, float32(3*u[r]*u[c]+w[r]*w[c]))
		}
		m.rowPtr[r+1] = len(m.cols)
	}
	got, err := topSingular(context.Background(), m, 1, 2, 2, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Power 1: the vector is u scaled by its singular value 3 (up to sign).
	sign := math.Copysign(1, got[0])
	for r := range u {
		if math.Abs(sign*got[r]-3*u[r]) > 1e-6 {
			t.Fatalf("top vector %v, want ±3·%v", got, u)
		}
	}
}
