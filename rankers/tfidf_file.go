package rankers

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/wire"
)

// UseStateFile makes t read the postings that lie in f, the mapped
// engine state t was decoded from (see [DecodeTFIDF]), with pread into
// reused buffers rather than through the mapping: on a kernel with large
// page-cache folios every list touched through the mapping makes up to
// 2 MB of the file resident, and within a few dozen searches most of the
// index. Updates of t keep f (their unchanged lists still lie in it).
// The postings read are the same bytes, so every score is the same.
func (t *TFIDF) UseStateFile(f *wire.File) { t.file = f }

// read returns ps, read from the state file into buf when ps lies in it
// (ps itself otherwise, or when the read fails).
func (t *TFIDF) read(ps []posting, buf *[]posting) []posting {
	if t.file == nil || len(ps) == 0 {
		return ps
	}
	if cap(*buf) < len(ps) {
		*buf = make([]posting, len(ps))
	}
	b := (*buf)[:len(ps)]
	if t.file.ReadInto(postingBytes(b), postingBytes(ps)) {
		return b
	}
	return ps
}

// between returns the postings of ps (sorted by doc) with a doc in
// [lo, hi), read as read does. With a state file a list of up to
// betweenWindow postings is read whole (one pread); in a longer one binary
// searches over single postings read from the file narrow each end to
// such a window first, so that a long list is neither touched through
// the mapping nor read whole for a note's few chunks.
func (t *TFIDF) between(ps []posting, lo, hi uint32, buf *[]posting) []posting {
	if t.file != nil && len(ps) > 0 {
		if got, ok := t.betweenRead(ps, lo, hi, buf); ok {
			return got
		}
	}
	return inRange(ps, lo, hi)
}

// betweenWindow is the longest run of postings between reads whole.
const betweenWindow = 4096

func (t *TFIDF) betweenRead(ps []posting, lo, hi uint32, buf *[]posting) ([]posting, bool) {
	failed := false
	var one [1]posting
	doc := func(i int) uint32 {
		if !t.file.ReadInto(postingBytes(one[:]), postingBytes(ps[i:i+1])) {
			failed = true
		}
		return one[0].doc
	}
	// [a, b) holds every posting with a doc in [lo, hi): narrow it.
	a, b := 0, len(ps)
	for b-a > betweenWindow && !failed {
		m := int(uint(a+b) >> 1)
		d := doc(m)
		switch {
		case d < lo:
			a = m + 1
		case d >= hi:
			b = m
		default: // m is in range: each end lies on its side of m
			a, b = narrowAbove(a, m, lo, doc), narrowAbove(m, b, hi, doc)
			if !failed {
				return t.read(ps[a:b], buf), true
			}
		}
	}
	if failed {
		return nil, false
	}
	return inRange(t.read(ps[a:b], buf), lo, hi), true
}

// narrowAbove is the first i in [a, b) with doc(i) ≥ v, found by binary
// search (b when none).
func narrowAbove(a, b int, v uint32, doc func(int) uint32) int {
	return a + firstAtLeast(b-a, v, func(i int) uint32 { return doc(a + i) })
}

// inRange is the postings of ps (sorted by doc) with a doc in [lo, hi).
func inRange(ps []posting, lo, hi uint32) []posting {
	j, _ := slices.BinarySearchFunc(ps, lo, func(p posting, d uint32) int { return cmp.Compare(p.doc, d) })
	k := j
	for k < len(ps) && ps[k].doc < hi {
		k++
	}
	return ps[j:k]
}

// firstAtLeast is the smallest i in [0, n] with doc(i) ≥ v (doc ascending).
func firstAtLeast(n int, v uint32, doc func(int) uint32) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if doc(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// postingBytes is the memory of ps as bytes.
func postingBytes(ps []posting) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ps))), len(ps)*postingSize)
}
