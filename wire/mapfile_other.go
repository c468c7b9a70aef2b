//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wire

import (
	"errors"
	"os"
)

// mapFile is unsupported here: Open reads the file instead.
func mapFile(*os.File, int) ([]byte, error) {
	return nil, errors.ErrUnsupported
}
