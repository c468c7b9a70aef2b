package embed

import (
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	big := float32(math.MaxFloat32)
	tests := []struct {
		name string
		in   []float32
		ok   bool
		want []float32 // nil: only check unit length
	}{
		{"3-4-0", []float32{3, 4, 0}, true, []float32{0.6, 0.8, 0}},
		{"negative", []float32{0, -2}, true, []float32{0, -1}},
		{"zero", []float32{0, 0}, false, []float32{0, 0}},
		{"empty", []float32{}, false, []float32{}},
		{"NaN", []float32{1, nan}, false, []float32{0, 0}},
		{"+Inf", []float32{inf, 1}, false, []float32{0, 0}},
		{"-Inf", []float32{1, -inf}, false, []float32{0, 0}},
		// float32 squares would overflow; float64 ones do not, and the
		// scale factor (≈ 1e-39, subnormal in float32) stays exact.
		{"huge", []float32{big, big, big, big}, true, []float32{0.5, 0.5, 0.5, 0.5}},
		{"tiny", []float32{1e-45, 0}, true, []float32{1, 0}},
	}
	for _, tt := range tests {
		v := append([]float32(nil), tt.in...)
		if ok := Normalize(v); ok != tt.ok {
			t.Errorf("%s: Normalize = %v, want %v", tt.name, ok, tt.ok)
		}
		for i := range v {
			if math.Abs(float64(v[i]-tt.want[i])) > 1e-6 || math.IsNaN(float64(v[i])) {
				t.Errorf("%s: got %v, want %v", tt.name, v, tt.want)
				break
			}
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 0, "abc"}, {"abc", -1, "abc"}, {"abc", 3, "abc"}, {"abc", 2, "ab"},
		{"héllo", 2, "hé"}, {"日本語テキスト", 3, "日本語"}, {"", 4, ""}, {"日本", 5, "日本"},
	}
	for _, tt := range tests {
		if got := TruncateRunes(tt.s, tt.n); got != tt.want {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
