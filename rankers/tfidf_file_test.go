package rankers

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/wire"
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
	w := &wire.Writer{}
	built.EncodeState(w)
	p := filepath.Join(t.TempDir(), "state")
	if err := os.WriteFile(p, w.Buf, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := wire.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	decode := func() *TFIDF {
		tf, err := DecodeTFIDF(wire.NewReader(f.Data), an, DefaultFieldWeights)
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
			t.Skip("no mapping on this system: postings are in memory")
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
	w := &wire.Writer{}
	for _, p := range ps {
		w.Buf = append(w.Buf, postingBytes([]posting{p})...)
	}
	path := filepath.Join(t.TempDir(), "lists")
	if err := os.WriteFile(path, w.Buf, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := wire.Open(path)
	if err != nil {
		t.Fatal(err)
	}
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
	file, plain := &TFIDF{file: f}, &TFIDF{}
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
	path := filepath.Join(t.TempDir(), "lists")
	if err := os.WriteFile(path, postingBytes(ps), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := wire.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	inFile := postingsOf(f.Data)
	last := uint32(2*len(ps) + 1)
	file, plain := &TFIDF{file: f}, &TFIDF{}
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
