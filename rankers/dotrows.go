package rankers

// dotRows sets out[r] = dot(q, rows[r*dim:(r+1)*dim]) for every r of out,
// to the bit: where the CPU has AVX, eight rows' partial sums at a time
// are the very float32 operations of dot's eight unrolled sums (one lane
// each), and the tail and the final sum of the lanes are done in Go as
// dot does them.
func dotRows(q, rows []float32, dim int, out []float32) {
	if len(out) == 0 {
		return
	}
	_ = rows[len(out)*dim-1]
	q = q[:dim]
	blocks := dim / 8
	if blocks == 0 || !haveDotLanes {
		for r := range out {
			out[r] = dot(q, rows[r*dim:(r+1)*dim])
		}
		return
	}
	// The lanes of dotRowsBatch rows at a time, on the stack.
	var lanes [dotRowsBatch * 8]float32
	for lo := 0; lo < len(out); lo += dotRowsBatch {
		n := min(dotRowsBatch, len(out)-lo)
		dotLanes(&q[0], &rows[lo*dim], dim, blocks, n, &lanes[0])
		for i := range n {
			out[lo+i] = finishDot(lanes[i*8:i*8+8], q, rows[(lo+i)*dim:(lo+i+1)*dim], blocks*8)
		}
	}
}

// dotRowsBatch is how many rows one call of dotLanes computes.
const dotRowsBatch = 64

// finishDot adds the components from tail on to lane 0 and sums the
// lanes, in dot's order.
func finishDot(l []float32, q, v []float32, tail int) float32 {
	v = v[:len(q)]
	s0, s1, s2, s3, s4, s5, s6, s7 := l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]
	for i := tail; i < len(q); i++ {
		s0 += float32(q[i] * v[i])
	}
	return (s0 + s1) + (s2 + s3) + ((s4 + s5) + (s6 + s7))
}

// dot8Rows sets out[r] = dot8(q, rows[r*dim:(r+1)*dim], scales[r]) for
// every r of out, to the bit, as dotRows does for dot.
func dot8Rows(q []float32, rows []int8, scales []float32, dim int, out []float32) {
	if len(out) == 0 {
		return
	}
	_, _ = rows[len(out)*dim-1], scales[len(out)-1]
	q = q[:dim]
	blocks := dim / 8
	if blocks == 0 || !haveDot8Lanes {
		for r := range out {
			out[r] = dot8(q, rows[r*dim:(r+1)*dim], scales[r])
		}
		return
	}
	var lanes [dotRowsBatch * 8]float32
	for lo := 0; lo < len(out); lo += dotRowsBatch {
		n := min(dotRowsBatch, len(out)-lo)
		dot8Lanes(&q[0], &rows[lo*dim], &scales[lo], dim, blocks, n, &lanes[0])
		for i := range n {
			r := lo + i
			out[r] = finishDot8(lanes[i*8:i*8+8], q, rows[r*dim:(r+1)*dim], scales[r], blocks*8)
		}
	}
}

// finishDot8 is finishDot for an int8 row and its scale.
func finishDot8(l []float32, q []float32, v []int8, scale float32, tail int) float32 {
	v = v[:len(q)]
	s0, s1, s2, s3, s4, s5, s6, s7 := l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]
	for i := tail; i < len(q); i++ {
		s0 += float32(q[i] * float32(scale*float32(v[i])))
	}
	return (s0 + s1) + (s2 + s3) + ((s4 + s5) + (s6 + s7))
}
