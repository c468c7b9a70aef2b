package bert

import "math"

// expAVX2 and geluAVX2 are exp32 and gelu over 8 lanes at a time
// (mathf_amd64.s); n is a multiple of 8.
//
//go:noescape
func expAVX2(x *float32, n int)

//go:noescape
func geluAVX2(x *float32, n int)

// expVecAVX2 sets v[i] = e^v[i]: 8 lanes at a time, the tail by exp32.
func expVecAVX2(v []float32) {
	n := len(v) &^ 7
	if n > 0 {
		expAVX2(&v[0], n)
	}
	for i := n; i < len(v); i++ {
		v[i] = exp32(v[i])
	}
}

// geluVecAVX2 is gelu, 8 lanes at a time.
func geluVecAVX2(v []float32) {
	n := len(v) &^ 7
	if n > 0 {
		geluAVX2(&v[0], n)
	}
	gelu(v[n:])
}

//go:noescape
func softmaxAVX2(v *float32, n int, scale float32)

// softmaxVecAVX2 is softmax over row[:n]; row's length is a multiple of
// 8 and its values past n are scratch: set to -Inf, they weigh 0.
func softmaxVecAVX2(row []float32, n int, scale float32) {
	if len(row)%8 != 0 {
		softmax(row[:n], scale, expVecAVX2)
		return
	}
	for i := n; i < len(row); i++ {
		row[i] = float32(math.Inf(-1))
	}
	softmaxAVX2(&row[0], len(row), scale)
}
