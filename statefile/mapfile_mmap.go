//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package statefile

import (
	"os"
	"syscall"
)

// CanMap reports whether Open memory-maps files on this system (else it
// reads them whole). Tests use it to tell a platform without mappings
// from a mapping that failed.
const CanMap = true

// mapFile maps size bytes of f read-only and private: writing to the
// result faults, and changes to the file by others are not promised to
// show (the caller only maps files that are replaced, never rewritten).
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
}
