//go:build !unix

package vault

// openNonblock is unneeded where a file cannot be a FIFO that blocks an
// open.
const openNonblock = 0
