package wire

import (
	"fmt"
	"os"
)

// ReadFile returns the bytes of the file at path for a [Reader]: mapped
// read-only into memory where the system can (no copy, and pages are
// read from the page cache as they are touched), else read whole. Evict
// drops the mapped pages from the process's memory (they stay in the
// page cache, and are read again when touched); it does nothing for a
// file read whole.
//
// A mapping is never unmapped: strings decoded from it point into it for
// as long as the process runs. It stays valid when the file is replaced
// by a rename or removed (the mapping keeps the old file), which is how
// state files are written; a file truncated in place by another program
// would make a later access fault, so files read with ReadFile must only
// ever be replaced, never rewritten.
func ReadFile(path string) (data []byte, evict func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("state file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("state file %s: not a regular file", path)
	}
	if size := st.Size(); size > 0 && size == int64(int(size)) {
		if b, err := mapFile(f, int(size)); err == nil {
			return b, func() { evictPages(b) }, nil
		}
	}
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
