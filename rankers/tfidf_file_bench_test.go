package rankers

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBetweenLong compares finding a note's few postings in a long
// list of the state file (140,000 postings, a common term at 107,000
// notes) through the fences (one read per call, the fences made once)
// with the binary search of single-posting reads it replaced (bisect,
// kept here only as the reference). Each call asks for a random note's
// range of 1–3 chunks, as ChunkScores does for a hit.
func BenchmarkBetweenLong(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := make([]posting, 140_000)
	d := uint32(0)
	for i := range ps {
		d += 1 + uint32(r.IntN(2))
		ps[i] = posting{doc: d, tf: 1}
	}
	f, inFile := mappedPostings(b, ps)
	t := &TFIDF{}
	t.UseStateFile(f)
	ranges := make([][2]uint32, 1024)
	for i := range ranges {
		lo := uint32(r.IntN(int(d)))
		ranges[i] = [2]uint32{lo, lo + 1 + uint32(r.IntN(3))}
	}
	var buf []posting
	t.between(inFile, 0, 1, &buf) // the fences, made once
	b.Run("fenced", func(b *testing.B) {
		for i := range b.N {
			rg := ranges[i%len(ranges)]
			t.between(inFile, rg[0], rg[1], &buf)
		}
	})
	b.Run("bisect", func(b *testing.B) {
		for i := range b.N {
			rg := ranges[i%len(ranges)]
			bisectBetween(t, inFile, rg[0], rg[1], &buf)
		}
	})
}

// bisectBetween is the search the fences replaced: a binary search over
// single postings read from the file down to a window of betweenWindow,
// then each end narrowed the same way.
func bisectBetween(t *TFIDF, ps []posting, lo, hi uint32, buf *[]posting) []posting {
	var one [1]posting
	doc := func(i int) uint32 {
		t.file.ReadInto(postingBytes(one[:]), postingBytes(ps[i:i+1]))
		return one[0].doc
	}
	first := func(a, b int, v uint32) int {
		for a < b {
			m := int(uint(a+b) >> 1)
			if doc(m) < v {
				a = m + 1
			} else {
				b = m
			}
		}
		return a
	}
	a, b := 0, len(ps)
	for b-a > betweenWindow {
		m := int(uint(a+b) >> 1)
		d := doc(m)
		switch {
		case d < lo:
			a = m + 1
		case d >= hi:
			b = m
		default:
			return t.read(ps[first(a, m, lo):first(m, b, hi)], buf)
		}
	}
	return inRange(t.read(ps[a:b], buf), lo, hi)
}
