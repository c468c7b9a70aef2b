package index

import (
	"slices"
	"unsafe"
)

// postings returns term postings lo..hi (docs and freq). A copy read from
// a mapped state file reads them from the file, appended to sc's buffers
// (a query's terms are all read before they are scored; slices returned
// before a buffer grew keep its old array): on a
// kernel with large page-cache folios, reading them through the mapping
// would make up to 2 MB of the file resident per touched list, and
// within a few dozen searches most of the copy. Without a file, or when
// the read fails, they are the mapped (or built) arrays themselves.
func (m *postingsCopy) postings(lo, hi uint32, sc *scratch) ([]uint32, []uint16) {
	docs, freq := m.docs[lo:hi], m.freq[lo:hi]
	n := len(docs)
	if m.file == nil || n == 0 {
		return docs, freq
	}
	start := len(sc.docs)
	sc.docs, sc.freq = slices.Grow(sc.docs, n)[:start+n], slices.Grow(sc.freq, n)[:start+n]
	d, f := sc.docs[start:], sc.freq[start:]
	if m.file.ReadInto(bytesOf(d), bytesOf(docs)) && m.file.ReadInto(bytesOf(f), bytesOf(freq)) {
		return d, f
	}
	sc.docs, sc.freq = sc.docs[:start], sc.freq[:start]
	return docs, freq
}

// bytesOf is the memory of s as bytes.
func bytesOf[T uint16 | uint32](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}
