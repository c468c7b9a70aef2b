package statefile

import "syscall"

// evictPages drops the resident pages of b, a read-only private mapping of
// a file: they were never written, so touching them again reads the
// file's (unchanged, see File) bytes back from the page cache.
func evictPages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED) // advice: a failure only leaves them resident
}
