package bert

import "math"

// exp32 is e^x in float32, accurate to about 2 ulp: x = n·ln2 + r with
// |r| ≤ ln2/2 (ln2 split in two parts so r is exact), e^r by its
// degree-6 Taylor polynomial (the remainder is under 2⁻²⁵), times 2ⁿ
// set in the exponent bits. Below -87.3 the result is 0, as float32's
// own underflow gives.
func exp32(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2hi = 0.693359375
		ln2lo = -2.12194440e-4
	)
	if x < -87.3 {
		return 0
	}
	if x > 88.7 {
		return float32(math.Inf(1))
	}
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	r := x - n*ln2hi - n*ln2lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// erf32 is erf(x) in float32 within 2·10⁻⁷ of the true value
// (Abramowitz and Stegun 7.1.26, whose error bound is 1.5·10⁻⁷; float32
// itself resolves 6·10⁻⁸ near 1). Beyond |x| = 4 it is ±1 to float32.
func erf32(x float32) float32 {
	const (
		p  = 0.3275911
		a1 = 0.254829592
		a2 = -0.284496736
		a3 = 1.421413741
		a4 = -1.453152027
		a5 = 1.061405429
	)
	s := float32(1)
	if x < 0 {
		s, x = -1, -x
	}
	if x > 4 {
		return s
	}
	// The polynomial in float64 keeps float32 rounding off the bound.
	t := 1 / (1 + p*float64(x))
	y := 1 - t*(a1+t*(a2+t*(a3+t*(a4+t*a5))))*float64(exp32(-x*x))
	return s * float32(y)
}
