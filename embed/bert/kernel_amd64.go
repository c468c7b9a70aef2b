package bert

import "golang.org/x/sys/cpu"

// kernelAVX2 is the AVX2+FMA micro-kernel (kernel_amd64.s).
//
//go:noescape
func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc, rows int)

// kernelAVX512 is the AVX-512 micro-kernel (kernel_amd64.s).
//
//go:noescape
func kernelAVX512(k int, a *float32, lda int, b *float32, c *float32, ldc, rows int)

// avx512 calls kernelAVX512 on slices, after checking they hold the
// block.
func avx512(k int, a []float32, lda int, b []float32, c []float32, ldc, rows int) {
	if rows < 1 || rows > mr || k < 1 {
		panic("bert: kernel block out of range")
	}
	_ = a[(rows-1)*lda+k-1]
	_ = b[k*nr-1]
	_ = c[(rows-1)*ldc+nr-1]
	kernelAVX512(k, &a[0], lda, &b[0], &c[0], ldc, rows)
}

// avx2 calls kernelAVX2 on slices, after checking they hold the block.
func avx2(k int, a []float32, lda int, b []float32, c []float32, ldc, rows int) {
	if rows < 1 || rows > mr || k < 1 {
		panic("bert: kernel block out of range")
	}
	_ = a[(rows-1)*lda+k-1]
	_ = b[k*nr-1]
	_ = c[(rows-1)*ldc+nr-1]
	kernelAVX2(k, &a[0], lda, &b[0], &c[0], ldc, rows)
}

// kernels lists the micro-kernels this CPU runs, fastest first (cpu.X86
// also checks that the OS saves the vector registers).
func kernels() []namedKernel {
	return x86Kernels(cpu.X86.HasAVX512F, cpu.X86.HasAVX2, cpu.X86.HasFMA)
}

// x86Kernels lists the micro-kernels a CPU with these features runs,
// fastest first: the AVX-512 one needs AVX-512F, the AVX2 one AVX2 and
// FMA, and the plain-Go one nothing.
func x86Kernels(avx512f, avx2f, fma bool) []namedKernel {
	var ks []namedKernel
	if avx512f && avx2f && fma {
		// exp and GELU stay 256 bits wide: a small share of the work.
		ks = append(ks, namedKernel{"avx512", avx512, expVecAVX2, geluVecAVX2, softmaxVecAVX2})
	}
	if avx2f && fma {
		ks = append(ks, namedKernel{"avx2", avx2, expVecAVX2, geluVecAVX2, softmaxVecAVX2})
	}
	return append(ks, goKernel)
}
