package rankers

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/statefile/statefiletest"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// TestTFIDFFromStateFile: an index decoded from a mapped state file that
// reads its postings from the file (UseStateFile) ranks notes and blocks,
// runs feedback and scores chunks exactly as the same index reading them
// through the mapping, and the lists it reads are not the mapping's.
func TestTFIDFFromStateFile(t *testing.T) {
	ctx := context.Background()
	snap, err := vault.Load(ctx, "../testdata/vault", vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		chunks[i] = chunk.Split(n, chunk.DefaultOptions)
	}
	an := analysis.New()
	built, err := NewTFIDF(ctx, an, snap.Notes, chunks, DefaultFieldWeights)
	if err != nil {
		t.Fatal(err)
	}
	w := &statefile.Writer{}
	built.EncodeState(w)
	f := statefiletest.Open(t, w.Buf)
	decode := func() *TFIDF {
		tf, err := DecodeTFIDF(statefile.NewReader(f.Data), an, DefaultFieldWeights)
		if err != nil {
			t.Fatal(err)
		}
		return tf
	}
	mapped, read := decode(), decode()
	read.UseStateFile(f)
	inFile := func(ps []posting) bool {
		lo := uintptr(unsafe.Pointer(&f.Data[0]))
		at := uintptr(unsafe.Pointer(&ps[0]))
		return at >= lo && at < lo+uintptr(len(f.Data))
	}
	var buf []posting
	readLists := 0
	for id := range read.dict.n {
		ps := read.notes.get(id)
		if len(ps) == 0 {
			continue
		}
		if !inFile(ps) {
			if !statefile.CanMap {
				t.Skip("no mapping on this system: postings are in memory")
			}
			t.Fatalf("term %d: decoded postings are not in the mapped file", id)
		}
		got := read.read(ps, &buf)
		if !reflect.DeepEqual(got, ps) || inFile(got) {
			t.Fatalf("term %d: read %v (from the mapping: %v), want %v", id, got, inFile(got), ps)
		}
		readLists++
	}
	if readLists == 0 {
		t.Fatal("no postings: the test proves nothing")
	}
	compared := 0
	for i, n := range snap.Notes {
		for _, q := range append(strings.Fields(n.Title), n.Title) {
			for _, block := range []bool{false, true} {
				req := Request{Query: q, Limit: 20, Block: block}
				a, errA := read.Rank(ctx, req)
				b, errB := mapped.Rank(ctx, req)
				if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("%q (block %v): %v, %v or the candidates differ", q, block, errA, errB)
				}
				var fb []int
				for _, c := range b[:min(len(b), FeedbackDocs)] {
					fb = append(fb, c.Note)
				}
				a, errA = read.Feedback(ctx, req, snap.Notes, fb)
				b, errB = mapped.Feedback(ctx, req, snap.Notes, fb)
				if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("feedback %q: %v, %v or the candidates differ", q, errA, errB)
				}
				compared += len(b)
			}
			for k := range snap.Notes {
				if sa, sb := read.ChunkScores(q, k), mapped.ChunkScores(q, k); !reflect.DeepEqual(sa, sb) {
					t.Fatalf("chunk scores of note %d for %q: %v, want %v", k, q, sa, sb)
				}
			}
		}
		if i > 40 {
			break
		}
	}
	if compared == 0 {
		t.Fatal("no candidates compared")
	}
}

// TestBetween: the postings with a doc in [lo, hi), found by binary
// searches over the file, are those found in memory.
func TestBetween(t *testing.T) {
	ps := []posting{{2, 1}, {3, 2}, {5, 3}, {9, 4}, {10, 5}, {11, 6}, {20, 7}}
	w := &statefile.Writer{}
	for _, p := range ps {
		w.Buf = append(w.Buf, postingBytes([]posting{p})...)
	}
	f := statefiletest.Open(t, w.Buf)
	inFile := postingsOf(f.Data)
	tests := []struct {
		lo, hi uint32
		want   []posting
	}{
		{0, 2, nil},
		{0, 3, ps[:1]},
		{3, 10, ps[1:4]},
		{4, 5, nil},
		{9, 12, ps[3:6]},
		{11, 100, ps[5:]},
		{21, 30, nil},
		{0, 100, ps},
	}
	file, plain := &TFIDF{}, &TFIDF{}
	file.UseStateFile(f)
	for _, tt := range tests {
		var buf []posting
		a, b := file.between(inFile, tt.lo, tt.hi, &buf), plain.between(ps, tt.lo, tt.hi, &buf)
		if len(a) != len(tt.want) || len(b) != len(tt.want) || (len(a) > 0 && (!reflect.DeepEqual(a, tt.want) || !reflect.DeepEqual(b, tt.want))) {
			t.Errorf("[%d, %d): file %v, memory %v, want %v", tt.lo, tt.hi, a, b, tt.want)
		}
	}
}

// TestBetweenLong: in lists longer than the window read whole, the ends
// found by single-posting reads give the same postings as in memory.
func TestBetweenLong(t *testing.T) {
	ps := make([]posting, 3*betweenWindow+17)
	for i := range ps {
		ps[i] = posting{doc: uint32(2*i + 1), tf: float32(i)}
	}
	f, inFile := mappedPostings(t, ps)
	last := uint32(2*len(ps) + 1)
	file, plain := &TFIDF{}, &TFIDF{}
	file.UseStateFile(f)
	for _, r := range [][2]uint32{{0, 1}, {0, 2}, {1, 2}, {0, last + 5}, {100, 104}, {7000, 7001}, {7001, 7002},
		{last - 3, last + 9}, {3, 2*betweenWindow + 10}, {2 * betweenWindow, 2*betweenWindow + 2}, {last, last + 1}} {
		var buf []posting
		a, b := file.between(inFile, r[0], r[1], &buf), plain.between(ps, r[0], r[1], nil)
		if len(a) != len(b) || (len(a) > 0 && !reflect.DeepEqual(a, b)) {
			t.Errorf("[%d, %d): file %d postings, memory %d", r[0], r[1], len(a), len(b))
		}
		if len(a) > 0 && &a[0] == &inFile[0] {
			t.Errorf("[%d, %d): read through the mapping", r[0], r[1])
		}
	}
}

// TestFenced: the part of a long list its fences point to holds every
// posting of [lo, hi) and at most two fence steps more, for lists of
// lengths around multiples of the step and ranges at, between and
// beyond fences.
func TestFenced(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 8))
	for _, n := range []int{fenceStep + 1, 2 * fenceStep, 2*fenceStep + 1, 9*fenceStep - 1, 20*fenceStep + 3} {
		docs := make([]uint32, n)
		d := uint32(0)
		for i := range docs {
			d += 1 + uint32(r.IntN(3))
			docs[i] = d
		}
		var fs []uint32
		for i := 0; i < n; i += fenceStep {
			fs = append(fs, docs[i])
		}
		ranges := [][2]uint32{{0, 1}, {0, d + 10}, {d, d + 1}, {d + 1, d + 5}, {fs[len(fs)-1], fs[len(fs)-1] + 1}}
		for _, f := range fs {
			ranges = append(ranges, [2]uint32{f, f + 1}, [2]uint32{f - 1, f}, [2]uint32{f + 1, f + 700})
		}
		for range 300 {
			lo := uint32(r.IntN(int(d) + 5))
			ranges = append(ranges, [2]uint32{lo, lo + uint32(r.IntN(60))})
		}
		for _, rg := range ranges {
			lo, hi := rg[0], rg[1]
			a, b := fenced(fs, n, lo, hi)
			i0, _ := slices.BinarySearch(docs, lo)
			j0, _ := slices.BinarySearch(docs, hi)
			if i0 < j0 && (a > i0 || b < j0) {
				t.Fatalf("n %d [%d, %d): part [%d, %d) misses postings [%d, %d)", n, lo, hi, a, b, i0, j0)
			}
			if b-a > max(0, j0-i0)+2*fenceStep {
				t.Fatalf("n %d [%d, %d): part [%d, %d) for %d postings", n, lo, hi, a, b, j0-i0)
			}
		}
	}
}

// TestBetweenFenced compares between over a long list in the state file
// with the same in memory, for many ranges, reading through one TF-IDF
// (its fences made once, then reused).
func TestBetweenFenced(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	ps := make([]posting, 7*betweenWindow+333)
	d := uint32(0)
	for i := range ps {
		d += 1 + uint32(r.IntN(4))
		ps[i] = posting{doc: d, tf: float32(i) / 7}
	}
	f, inFile := mappedPostings(t, ps)
	file, plain := &TFIDF{}, &TFIDF{}
	file.UseStateFile(f)
	var buf []posting
	for i := range 2000 {
		lo := uint32(r.IntN(int(d) + 10))
		hi := lo + uint32(r.IntN(1+i%300))
		a, b := file.between(inFile, lo, hi, &buf), plain.between(ps, lo, hi, nil)
		if len(a) != len(b) || (len(a) > 0 && !reflect.DeepEqual(a, b)) {
			t.Fatalf("[%d, %d): file %d postings, memory %d", lo, hi, len(a), len(b))
		}
		if len(a) > 0 && &a[0] == &inFile[0] {
			t.Fatalf("[%d, %d): read through the mapping", lo, hi)
		}
	}
	if n := fenceCount(file.fences); n != 1 {
		t.Fatalf("%d lists fenced, want the one", n)
	}
}

func fenceCount(c *fenceCache) int {
	n := 0
	c.m.Range(func(any, any) bool { n++; return true })
	return n
}

// mappedPostings writes ps as a state file's postings and maps it: the
// file, and its postings read in place.
func mappedPostings(tb testing.TB, ps []posting) (*statefile.File, []posting) {
	tb.Helper()
	f := statefiletest.Open(tb, postingBytes(ps))
	return f, postingsOf(f.Data)
}
