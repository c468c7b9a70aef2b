//go:build !linux

package statefile

// evictPages leaves the pages resident where the standard library offers
// no madvise: the system reclaims them under memory pressure anyway.
func evictPages([]byte) {}
