package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startAllocProfile writes the allocation profile so far to path+".ready"
// and returns the function that writes it again to path. The profile is
// cumulative since the process started, so the allocations of the served
// load alone are the difference:
//
//	go tool pprof -sample_index=alloc_space -diff_base PATH.ready BIN PATH
//
// A diagnostic for benchmarks (serve-http --mem-profile); nothing is
// served over the network for it.
func startAllocProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	if err := writeAllocProfile(path + ".ready"); err != nil {
		return nil, err
	}
	return func() error { return writeAllocProfile(path) }, nil
}

// writeAllocProfile writes the "allocs" profile to path.
func writeAllocProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("mem profile: %w", err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("mem profile %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("mem profile %s: %w", path, err)
	}
	return nil
}
