package index

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/statefile/statefiletest"
)

// TestPostingsCopySaveFromFile: a copy decoded from a mapped state file equals the
// built one, answers every query as FTS5 does, and reads its postings
// from the file into the search's buffers, not through the mapping.
func TestPostingsCopySaveFromFile(t *testing.T) {
	ctx := context.Background()
	root, ix := mixedVault(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
	syncDisk(t, ix)
	data := savedCopy(t, ix)
	built := ix.bm25.idx.Load()
	f := statefiletest.Open(t, data)
	s, err := DecodePostingsFile(f.Data, f)
	if err != nil {
		t.Fatal(err)
	}
	if s.m.file != f {
		t.Fatal("the copy does not know its file")
	}
	plain := *s.m
	plain.file = nil
	if !reflect.DeepEqual(&plain, built) {
		t.Fatal("decoded copy differs from the built one")
	}
	mapped := func(b []byte) bool {
		lo := uintptr(unsafe.Pointer(&f.Data[0]))
		p := uintptr(unsafe.Pointer(&b[0]))
		return p >= lo && p < lo+uintptr(len(f.Data))
	}
	if !mapped(bytesOf(s.m.docs)) {
		if !statefile.CanMap {
			t.Skip("no mapping on this system: postings are read in memory")
		}
		t.Fatal("decoded postings are not in the mapped file")
	}
	var sc scratch
	read := 0
	for term := range s.m.offs[:len(s.m.offs)-1] {
		lo, hi := s.m.offs[term], s.m.offs[term+1]
		sc.docs, sc.freq = sc.docs[:0], sc.freq[:0]
		docs, freq := s.m.postings(lo, hi, &sc)
		if !reflect.DeepEqual(docs, s.m.docs[lo:hi]) || !reflect.DeepEqual(freq, s.m.freq[lo:hi]) {
			t.Fatalf("term %d: postings read from the file differ", term)
		}
		if len(docs) > 0 {
			if mapped(bytesOf(docs)) || mapped(bytesOf(freq)) {
				t.Fatalf("term %d: postings read through the mapping", term)
			}
			read++
		}
	}
	if read == 0 {
		t.Fatal("no term has postings: the test proves nothing")
	}
	ix.bm25.idx.Store(nil)
	if why, err := ix.BM25().AdoptPostings(ctx, s); why != "" || err != nil {
		t.Fatalf("not adopted: %q, %v", why, err)
	}
	queries := append(equivalenceQueries(t, root), mixedQueries...)
	compared, fromCopy := compareWithReference(t, ix, queries)
	if compared == 0 || fromCopy < len(queries)/2 {
		t.Fatalf("%d hits compared, %d of %d queries from memory", compared, fromCopy, len(queries))
	}
}
