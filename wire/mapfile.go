package wire

import (
	"fmt"
	"os"
)

// ReadFile returns the bytes of the file at path for a [Reader]: mapped
// read-only into memory where the system can (no copy, and pages are
// read from the page cache as they are touched), else read whole.
//
// A mapping is never unmapped: strings decoded from it point into it for
// as long as the process runs. It stays valid when the file is replaced
// by a rename or removed (the mapping keeps the old file), which is how
// state files are written; a file truncated in place by another program
// would make a later access fault, so files read with ReadFile must only
// ever be replaced, never rewritten.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("state file %s: not a regular file", path)
	}
	size := st.Size()
	if size == 0 || size != int64(int(size)) {
		return os.ReadFile(path)
	}
	if b, err := mapFile(f, int(size)); err == nil {
		return b, nil
	}
	return os.ReadFile(path)
}
