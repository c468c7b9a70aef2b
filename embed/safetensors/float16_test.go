package safetensors

import (
	"math"
	"testing"
)

func TestF16RoundTrip(t *testing.T) {
	cases := []float32{0, 1, -1, 0.5, 65504, -2.5, 6.1035156e-05, 5.9604645e-08, 0.33325195}
	for _, f := range cases {
		if got := F16ToF32(F32ToF16(f)); got != f {
			t.Errorf("round trip %v: got %v", f, got)
		}
	}
	if !math.IsInf(float64(F16ToF32(0x7c00)), 1) || !math.IsNaN(float64(F16ToF32(0x7e00))) {
		t.Error("inf/nan not preserved")
	}
	if math.Signbit(float64(F16ToF32(0x8000))) != true {
		t.Error("negative zero lost")
	}
}
