//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package statefile

import (
	"errors"
	"os"
)

// CanMap reports whether Open memory-maps files on this system (else it
// reads them whole). Tests use it to tell a platform without mappings
// from a mapping that failed.
const CanMap = false

// mapFile is unsupported here: Open reads the file instead.
func mapFile(*os.File, int) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
