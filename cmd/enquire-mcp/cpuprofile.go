package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts a CPU profile into cpuPath and, when memPath is
// set, an allocation profile into memPath (none when a path is empty); it
// returns the function that stops them and writes the files.
// It is a diagnostic for benchmarks (bench/httpab.sh --cpu-profile):
// nothing is served over the network.
func startCPUProfile(cpuPath, memPath string) (stop func() error, err error) {
	stopCPU, err := startCPUOnly(cpuPath)
	if err != nil {
		return nil, err
	}
	stopMem, err := startAllocProfile(memPath)
	if err != nil {
		return nil, errors.Join(err, stopCPU())
	}
	return func() error { return errors.Join(stopCPU(), stopMem()) }, nil
}

// startCPUOnly starts a CPU profile into path (none when path is empty).
func startCPUOnly(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile %s: %w", path, err)
		}
		return nil
	}, nil
}
