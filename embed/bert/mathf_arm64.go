package bert

import "math"

// expNEON, geluNEON and softmaxNEON are exp32, gelu and softmax over 4
// lanes at a time (mathf_arm64.s); n is a multiple of 4.
//
//go:noescape
func expNEON(x *float32, n int)

//go:noescape
func geluNEON(x *float32, n int)

//go:noescape
func softmaxNEON(v *float32, n int, scale float32)

// expVecNEON sets v[i] = e^v[i]: 4 lanes at a time, the tail by exp32.
func expVecNEON(v []float32) {
	n := len(v) &^ 3
	if n > 0 {
		expNEON(&v[0], n)
	}
	for i := n; i < len(v); i++ {
		v[i] = exp32(v[i])
	}
}

// geluVecNEON is gelu, 4 lanes at a time.
func geluVecNEON(v []float32) {
	n := len(v) &^ 3
	if n > 0 {
		geluNEON(&v[0], n)
	}
	gelu(v[n:])
}

// softmaxVecNEON is softmax over row[:n]; row's length is a multiple of
// 4 and its values past n are scratch: set to -Inf, they weigh 0.
func softmaxVecNEON(row []float32, n int, scale float32) {
	if len(row)%4 != 0 {
		softmax(row[:n], scale, expVecNEON)
		return
	}
	for i := n; i < len(row); i++ {
		row[i] = float32(math.Inf(-1))
	}
	softmaxNEON(&row[0], len(row), scale)
}
