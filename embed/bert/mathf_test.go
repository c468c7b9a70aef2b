package bert

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpErf checks the float32 exp and erf against the float64 ones on
// a fine grid over the ranges softmax and GELU use.
func TestExpErf(t *testing.T) {
	for x := -100.0; x <= 20; x += 0.001 {
		got, want := float64(exp32(float32(x))), math.Exp(float64(float32(x)))
		if math.Abs(got-want) > 4e-7*want && !(want < 1e-37 && got < 1e-37) {
			t.Fatalf("exp32(%g) = %g, want %g (relative error %.2g)", x, got, want, math.Abs(got-want)/want)
		}
	}
	for x := -10.0; x <= 10; x += 0.0007 {
		got, want := float64(erf32(float32(x))), math.Erf(float64(float32(x)))
		if math.Abs(got-want) > 2e-7 {
			t.Fatalf("erf32(%g) = %g, want %g (error %.2g)", x, got, want, math.Abs(got-want))
		}
	}
}

// TestVectorMath checks every kernel set's exp and GELU (the AVX2 ones
// where the CPU has them) against float64, on lengths with and without
// a tail of fewer than 8.
func TestVectorMath(t *testing.T) {
	for _, k := range kernels() {
		for _, n := range []int{1, 7, 8, 9, 1003} {
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = float32(-12 + 24*float64(i)/float64(n))
			}
			ex := append([]float32(nil), xs...)
			for i := range ex {
				ex[i] = -ex[i] * ex[i] // softmax's range: ≤ 0, down to -144
			}
			in := append([]float32(nil), ex...)
			k.exp(ex)
			for i, x := range in {
				want := math.Exp(float64(x))
				if d := math.Abs(float64(ex[i]) - want); d > 4e-7*want && !(want < 1e-37 && ex[i] < 1e-37) {
					t.Fatalf("%s exp(%g) = %g, want %g", k.name, x, ex[i], want)
				}
			}
			g := append([]float32(nil), xs...)
			k.gelu(g)
			for i, x := range xs {
				xf := float64(x)
				want := 0.5 * xf * (1 + math.Erf(xf/math.Sqrt2))
				if d := math.Abs(float64(g[i]) - want); d > 3e-7*max(1, math.Abs(xf)) {
					t.Fatalf("%s gelu(%g) = %g, want %g (error %.2g)", k.name, x, g[i], want, d)
				}
			}
		}
	}
}

// TestSoftmax checks every kernel set's softmax over the first n of a
// row padded to a multiple of 16, as attention lays the scores out.
func TestSoftmax(t *testing.T) {
	for _, k := range kernels() {
		for _, n := range []int{1, 5, 16, 37, 256} {
			ld := (n + 15) / 16 * 16
			row := make([]float32, ld)
			for i := range row {
				row[i] = float32(math.Sin(float64(i)*1.7) * 40)
			}
			want := make([]float64, n)
			top, sum := math.Inf(-1), 0.0
			for i := range n {
				top = max(top, float64(row[i]))
			}
			for i := range n {
				want[i] = math.Exp((float64(row[i]) - top) * 0.125)
				sum += want[i]
			}
			k.softmax(row, n, 0.125)
			for i := range n {
				if d := math.Abs(float64(row[i]) - want[i]/sum); d > 1e-6 {
					t.Fatalf("%s softmax n=%d: [%d] = %g, want %g", k.name, n, i, row[i], want[i]/sum)
				}
			}
		}
	}
}

// TestVectorMathMatchesGo runs every assembly kernel set's exp, GELU and
// softmax against the plain-Go ones on random values, over every length
// from 1 to 20 (every tail of the 4- and 8-lane loops) and a few long
// ones.
func TestVectorMathMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	lengths := []int{37, 64, 255, 1001}
	for n := 1; n <= 20; n++ {
		lengths = append(lengths, n)
	}
	for _, k := range kernels() {
		if k.name == goKernel.name {
			continue
		}
		for _, n := range lengths {
			xs := make([]float32, n)
			for i := range xs {
				xs[i] = float32(rng.NormFloat64() * 6)
			}
			// exp over softmax's range, ≤ 0.
			got, want := make([]float32, n), make([]float32, n)
			for i, x := range xs {
				got[i] = -x * x
			}
			copy(want, got)
			k.exp(got)
			goKernel.exp(want)
			for i := range got {
				if d := math.Abs(float64(got[i] - want[i])); d > 5e-7*float64(want[i]) && !(want[i] < 1e-37 && got[i] < 1e-37) {
					t.Fatalf("%s exp(%g) = %g, plain Go %g", k.name, -xs[i]*xs[i], got[i], want[i])
				}
			}
			copy(got, xs)
			copy(want, xs)
			k.gelu(got)
			goKernel.gelu(want)
			for i, x := range xs {
				if d := math.Abs(float64(got[i] - want[i])); d > 5e-7*max(1, math.Abs(float64(x))) {
					t.Fatalf("%s gelu(%g) = %g, plain Go %g", k.name, x, got[i], want[i])
				}
			}
			// softmax as attention calls it: a row padded to 16.
			ld := (n + 15) / 16 * 16
			got, want = make([]float32, ld), make([]float32, ld)
			copy(got, xs)
			copy(want, xs)
			k.softmax(got, n, 0.125)
			goKernel.softmax(want, n, 0.125)
			for i := range n {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6 {
					t.Fatalf("%s softmax n=%d: [%d] = %g, plain Go %g", k.name, n, i, got[i], want[i])
				}
			}
		}
	}
}
