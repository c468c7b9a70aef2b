package statefile

import (
	"fmt"
	"io"
	"os"
	"unsafe"
)

// File is a file read for a [Reader] by [Open]: its bytes, mapped
// read-only into memory where the system can (no copy, and pages are read
// from the page cache as they are touched), else read whole.
//
// A mapping is never unmapped, and the file stays open with it: strings
// decoded from Data point into it for as long as the process runs. It
// stays valid when the file is replaced by a rename or removed (the
// mapping and the open file keep the old one), which is how state files
// are written; a file truncated in place by another program would make a
// later access fault, so files opened here must only ever be replaced,
// never rewritten.
type File struct {
	// Data is the file's bytes.
	Data []byte
	// f is the open file behind a mapping (nil for a file read whole).
	f *os.File
}

// Open reads the file at path (see [File]).
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("state file: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("state file %s: not a regular file", path)
	}
	if size := st.Size(); size > 0 && size == int64(int(size)) {
		if b, err := mapFile(f, int(size)); err == nil {
			return &File{Data: b, f: f}, nil // f stays open for Copy
		}
	}
	f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &File{Data: b}, nil
}

// Evict drops the mapped pages from the process's memory (they stay in
// the page cache, and are read again when touched); it does nothing for a
// file read whole.
func (m *File) Evict() {
	if m != nil && m.f != nil {
		evictPages(m.Data)
	}
}

// Copy returns s, a string decoded from the mapped Data, as a copy read
// from the file with pread rather than through the mapping: the bytes
// read go through the page cache without being mapped into the process.
// On this project's main platform (Linux 6.x with large page-cache
// folios) a read through the mapping makes a whole folio (up to 2 MB)
// resident, so reading a few notes' text for a search that way makes
// most of the file resident after a few hundred searches. Any other s
// (not from the mapping, empty, a file read whole, nil m) is returned as
// it is, and so is s when the read fails (the mapping then serves it).
func (m *File) Copy(s string) string {
	if m == nil || m.f == nil || len(s) == 0 {
		return s
	}
	off, ok := m.offset(s)
	if !ok {
		return s
	}
	buf := make([]byte, len(s))
	if k, err := m.f.ReadAt(buf, off); err != nil || k != len(buf) {
		return s
	}
	return unsafe.String(&buf[0], len(buf))
}

// ReadInto reads src, bytes of the mapped Data, into dst (at least as
// long) with pread, not through the mapping (see Copy). It reports false,
// and reads nothing, when src is not from the mapping or the read fails:
// the caller then reads src itself.
func (m *File) ReadInto(dst, src []byte) bool {
	if m == nil || m.f == nil || len(src) == 0 || len(dst) < len(src) {
		return false
	}
	off, ok := m.offset(unsafe.String(&src[0], len(src)))
	if !ok {
		return false
	}
	k, err := m.f.ReadAt(dst[:len(src)], off)
	return err == nil && k == len(src)
}

// WritePrefix writes the file's first n bytes (n ≤ len(Data)) to w, read
// with pread in large blocks rather than through the mapping (a checksum
// over a whole state file would otherwise make all of it resident). It
// reports false, having written nothing or part, when there is no open
// file or a read fails: the caller then reads Data itself.
func (m *File) WritePrefix(w io.Writer, n int) bool {
	if m == nil || m.f == nil || n < 0 || n > len(m.Data) {
		return false
	}
	k, err := io.CopyBuffer(w, io.NewSectionReader(m.f, 0, int64(n)), make([]byte, 1<<20))
	return err == nil && k == int64(n)
}

// offset is where s lies in Data, if it does.
func (m *File) offset(s string) (int64, bool) {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))
	if p < base || p-base > uintptr(len(m.Data)) || uintptr(len(s)) > uintptr(len(m.Data))-(p-base) {
		return 0, false
	}
	return int64(p - base), true
}
