//go:build !amd64 && !arm64

package bert

// kernels lists the micro-kernels this platform runs: the plain-Go one.
func kernels() []namedKernel { return []namedKernel{goKernel} }
