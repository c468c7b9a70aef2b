//go:build linux

package index

import (
	"os"
	"syscall"
)

// statStamp reads the file's stamp; false when it cannot be read.
func statStamp(path string) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{
		dev: uint64(st.Dev), ino: uint64(st.Ino), size: st.Size, //nolint:unconvert // Dev's type differs by architecture
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}, true
}
