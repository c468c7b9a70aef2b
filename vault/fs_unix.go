//go:build unix

package vault

import "syscall"

// openNonblock keeps an open from blocking on a FIFO that replaced a
// file after it was checked; on a regular file it changes nothing.
const openNonblock = syscall.O_NONBLOCK
