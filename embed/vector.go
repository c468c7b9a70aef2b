package embed

import "math"

// Normalize scales v to unit L2 length in place. It reports false, and
// zeroes v, when v cannot be normalised: its norm is zero or not finite
// (a NaN or infinite component, or a sum of squares that overflows). The
// sum of squares is taken in float64, so every finite float32 vector
// normalises.
func Normalize(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsInf(ss, 0) || math.IsNaN(ss) {
		clear(v)
		return false
	}
	inv := 1 / math.Sqrt(ss) // in float64: a float32 1/norm can be subnormal
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return true
}

// TruncateRunes returns the first n characters (runes) of s, as Python's
// s[:n] does; n <= 0 means no limit.
func TruncateRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
