package bert

import (
	"math"
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
