package bert

import (
	"slices"
	"testing"
)

// TestX86Dispatch checks which kernel sets a CPU runs by its features:
// without AVX2 or without FMA only the plain-Go one.
func TestX86Dispatch(t *testing.T) {
	for _, tc := range []struct {
		avx512f, avx2, fma bool
		want               []string
	}{
		{false, false, false, []string{"go"}},
		{false, true, false, []string{"go"}},
		{false, false, true, []string{"go"}},
		{true, false, true, []string{"go"}},
		{true, true, false, []string{"go"}},
		{false, true, true, []string{"avx2", "go"}},
		{true, true, true, []string{"avx512", "avx2", "go"}},
	} {
		var got []string
		for _, k := range x86Kernels(tc.avx512f, tc.avx2, tc.fma) {
			got = append(got, k.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("AVX-512F %v, AVX2 %v, FMA %v: kernels %v, want %v", tc.avx512f, tc.avx2, tc.fma, got, tc.want)
		}
	}
}
