//go:build !amd64

package bert

func bestKernel() kernelFunc { return kernelGo }

func kernelName(k kernelFunc) string { return "go" }
