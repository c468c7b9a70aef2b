package pdf

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// limitAddressSpace sets the process's soft RLIMIT_AS to n bytes (0:
// leave it). The hard limit is untouched: the input is hostile data, not
// code, so nothing in the child raises it again.
func limitAddressSpace(n uint64) error {
	if n == 0 {
		return nil
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		return err
	}
	if lim.Cur != ^uint64(0) && lim.Cur <= n {
		return nil // already tighter
	}
	lim.Cur = min(n, lim.Max)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
}

// addressSpaceLimit is the address space the child may map for a Go
// memory limit of limit bytes: what it maps already (the runtime reserves
// about a gigabyte of address space up front), twice the limit (the heap
// is mapped in 64 MiB arenas and the collector needs room to move) and
// 256 MiB for stacks and the extraction's own buffers. 0 (no cap) under
// the race detector, whose shadow memory grows with every mapping.
func addressSpaceLimit(limit int64) uint64 {
	if raceEnabled || limit <= 0 {
		return 0
	}
	return mappedBytes() + 2*uint64(limit) + 256<<20
}

// mappedBytes is the process's current address space (VmSize), 0 if
// unknown.
func mappedBytes() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmSize:")); ok {
			f := bytes.Fields(rest)
			if len(f) == 2 && string(f[1]) == "kB" {
				kb, err := strconv.ParseUint(string(f[0]), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
