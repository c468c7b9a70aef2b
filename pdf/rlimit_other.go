//go:build !linux

package pdf

// limitAddressSpace does nothing outside Linux (RLIMIT_AS is not enforced
// by every Unix and absent on Windows): the child's memory watchdog still
// runs.
func limitAddressSpace(uint64) error { return nil }

// addressSpaceLimit is 0 (no cap) outside Linux.
func addressSpaceLimit(int64) uint64 { return 0 }
