package bert

// NewX86 is New on an amd64 CPU with the given features, whatever this
// one has.
func NewX86(w Weights, avx512f, avx2, fma bool) (*Encoder, error) {
	return newEncoder(w, x86Kernels(avx512f, avx2, fma)[0])
}
