package bert

import "golang.org/x/sys/cpu"

// kernelAVX2 is the AVX2+FMA micro-kernel (kernel_amd64.s).
//
//go:noescape
func kernelAVX2(k int, a *float32, lda int, b *float32, c *float32, ldc, rows int)

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

// kernels lists the micro-kernels this CPU runs, fastest first: the
// AVX2 one needs AVX2 and FMA (cpu.X86 also checks that the OS saves the
// YMM registers).
func kernels() []namedKernel {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return []namedKernel{{"avx2", avx2, expVecAVX2, geluVecAVX2}, goKernel}
	}
	return []namedKernel{goKernel}
}
