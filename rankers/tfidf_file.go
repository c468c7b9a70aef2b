package rankers

import (
	"cmp"
	"slices"
	"sync"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// UseStateFile makes t read the postings that lie in f, the mapped
// engine state t was decoded from (see [DecodeTFIDF]), with pread into
// reused buffers rather than through the mapping: on a kernel with large
// page-cache folios every list touched through the mapping makes up to
// 2 MB of the file resident, and within a few dozen searches most of the
// index. Updates of t keep f (their unchanged lists still lie in it).
// The postings read are the same bytes, so every score is the same.
func (t *TFIDF) UseStateFile(f *statefile.File) { t.file, t.fences = f, &fenceCache{} }

// read returns ps, read from the state file into buf when ps lies in it
// (ps itself otherwise, or when the read fails).
func (t *TFIDF) read(ps []posting, buf *[]posting) []posting {
	if got, ok := t.readFile(ps, buf); ok {
		return got
	}
	return ps
}

// readFile reads ps from the state file into buf; false when ps does not
// lie in it or the read fails.
func (t *TFIDF) readFile(ps []posting, buf *[]posting) ([]posting, bool) {
	if t.file == nil || len(ps) == 0 {
		return nil, false
	}
	if cap(*buf) < len(ps) {
		*buf = make([]posting, len(ps))
	}
	b := (*buf)[:len(ps)]
	return b, t.file.ReadInto(postingBytes(b), postingBytes(ps))
}

// between returns the postings of ps (sorted by doc) with a doc in
// [lo, hi), read as read does, with one read: a list of up to
// betweenWindow postings is read whole; of a longer one only the part
// its fences (see fenceCache) say holds [lo, hi), so that a long list is
// neither touched through the mapping nor read whole for a note's few
// chunks.
func (t *TFIDF) between(ps []posting, lo, hi uint32, buf *[]posting) []posting {
	if t.file != nil && len(ps) > 0 {
		if got, ok := t.betweenRead(ps, lo, hi, buf); ok {
			return got
		}
	}
	return inRange(ps, lo, hi)
}

// betweenWindow is the longest list between reads whole.
const betweenWindow = 4096

func (t *TFIDF) betweenRead(ps []posting, lo, hi uint32, buf *[]posting) ([]posting, bool) {
	a, b := 0, len(ps)
	if len(ps) > betweenWindow && t.fences != nil {
		fs, ok := t.fences.of(t, ps, buf)
		if !ok {
			return nil, false
		}
		a, b = fenced(fs, len(ps), lo, hi)
		if a >= b {
			return nil, true
		}
	}
	got, ok := t.readFile(ps[a:b], buf)
	if !ok {
		return nil, false
	}
	return inRange(got, lo, hi), true
}

// fenceStep is the distance between a long list's fences.
const fenceStep = 512

// fenceCache holds, for each list of the state file longer than
// betweenWindow that a search has looked into, the doc of every
// fenceStep-th posting (a 4-byte fence per 512 postings), keyed by the
// list's place in the mapping. It is made the first time the list is
// needed, from one read of the whole list; after that, finding a note's
// postings in the list reads only the few kilobytes between two fences
// (before, a binary search read one posting per step: dozens of reads
// per hit and term). Updates of the TF-IDF share the cache (lists that
// stay in the file stay where they are).
type fenceCache struct{ m sync.Map } // uintptr → []uint32

// of returns the fences of ps (in the state file), reading the whole
// list into buf the first time; false when the read fails.
func (c *fenceCache) of(t *TFIDF, ps []posting, buf *[]posting) ([]uint32, bool) {
	key := uintptr(unsafe.Pointer(unsafe.SliceData(ps)))
	if fs, ok := c.m.Load(key); ok {
		return fs.([]uint32), true
	}
	all, ok := t.readFile(ps, buf)
	if !ok {
		return nil, false
	}
	fs := make([]uint32, 0, (len(all)+fenceStep-1)/fenceStep)
	for i := 0; i < len(all); i += fenceStep {
		fs = append(fs, all[i].doc)
	}
	got, _ := c.m.LoadOrStore(key, fs)
	return got.([]uint32), true
}

// fenced is the part [a, b) of a list of n postings (sorted by doc, with
// fences fs) that holds every posting with a doc in [lo, hi): from the
// last fence below lo to the first fence at or above hi.
func fenced(fs []uint32, n int, lo, hi uint32) (a, b int) {
	f, _ := slices.BinarySearch(fs, lo) // first fence ≥ lo: fence f−1 is below lo
	g, _ := slices.BinarySearch(fs, hi) // first fence ≥ hi: no posting from it on is in range
	a, b = max(0, (f-1)*fenceStep), n
	if g < len(fs) {
		b = g * fenceStep
	}
	return a, b
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

// postingBytes is the memory of ps as bytes.
func postingBytes(ps []posting) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ps))), len(ps)*postingSize)
}
