package bert

// kernelNEON is the NEON micro-kernel (kernel_arm64.s).
//
//go:noescape
func kernelNEON(k int, a *float32, lda int, b *float32, c *float32, ldc, rows int)

// neon calls kernelNEON on slices, after checking they hold the block.
func neon(k int, a []float32, lda int, b []float32, c []float32, ldc, rows int) {
	if rows < 1 || rows > mr || k < 1 {
		panic("bert: kernel block out of range")
	}
	_ = a[(rows-1)*lda+k-1]
	_ = b[k*nr-1]
	_ = c[(rows-1)*ldc+nr-1]
	kernelNEON(k, &a[0], lda, &b[0], &c[0], ldc, rows)
}

// kernels lists the micro-kernels this CPU runs, fastest first. NEON
// (ASIMD) needs no check: every arm64 CPU Go runs on has it, and Go's
// own runtime uses it unconditionally.
func kernels() []namedKernel {
	return []namedKernel{{"neon", neon, expVecNEON, geluVecNEON, softmaxVecNEON}, goKernel}
}
