package model2vec

import (
	"math"
	"testing"
)

// f32ToF16 converts a float32 to half precision, rounding to nearest even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}

func TestF16RoundTrip(t *testing.T) {
	cases := []float32{0, 1, -1, 0.5, 65504, -2.5, 6.1035156e-05, 5.9604645e-08, 0.33325195}
	for _, f := range cases {
		if got := f16ToF32(f32ToF16(f)); got != f {
			t.Errorf("round trip %v: got %v", f, got)
		}
	}
	if !math.IsInf(float64(f16ToF32(0x7c00)), 1) || !math.IsNaN(float64(f16ToF32(0x7e00))) {
		t.Error("inf/nan not preserved")
	}
	if math.Signbit(float64(f16ToF32(0x8000))) != true {
		t.Error("negative zero lost")
	}
}
