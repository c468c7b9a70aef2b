package index

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

// savedCopy builds the in-memory copy of ix and returns it encoded.
func savedCopy(t *testing.T, ix *Index) []byte {
	t.Helper()
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	w := &statefile.Writer{}
	ok, err := ix.BM25().EncodePostings(context.Background(), w)
	if err != nil || !ok {
		t.Fatalf("EncodePostings: %v, %v", ok, err)
	}
	return w.Buf
}

// TestPostingsCopySaveRoundTrip encodes the in-memory BM25 copy and decodes it,
// read in place and (one byte off the alignment) copied: both equal the
// built copy field by field, and an index that takes the decoded copy
// answers every query from it exactly as FTS5 does.
func TestPostingsCopySaveRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, ix func(root string) *Index) (string, *Index)
	}{
		{"fixture", func(_ *testing.T, ix func(string) *Index) (string, *Index) {
			return "../testdata/vault", ix("../testdata/vault")
		}},
		{"mixed", mixedVault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, ix := tc.setup(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
			syncDisk(t, ix)
			data := savedCopy(t, ix)
			built := ix.bm25.idx.Load()
			misaligned := make([]byte, len(data)+1)[1:]
			copy(misaligned, data)
			for _, b := range [][]byte{data, misaligned} {
				s, err := DecodePostings(b)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(s.m, built) {
					t.Fatal("decoded copy differs from the built one")
				}
				inPlace := &b[len(b)-1] == &unsafe.Slice((*byte)(unsafe.Pointer(&s.m.freq[0])), 2*len(s.m.freq))[2*len(s.m.freq)-1]
				if aligned := &b[0] == &data[0]; inPlace != aligned {
					t.Fatalf("postings read in place: %v, aligned: %v", inPlace, aligned)
				}
				if s.instance != ix.InstanceID() || s.instance == "" {
					t.Fatalf("instance id %q, index has %q", s.instance, ix.InstanceID())
				}
				ix.bm25.idx.Store(nil)
				if why, err := ix.BM25().AdoptPostings(ctx, s); why != "" || err != nil {
					t.Fatalf("not adopted: %q, %v", why, err)
				}
				if ix.bm25.idx.Load() != s.m {
					t.Fatal("the index does not hold the saved copy")
				}
				queries := append(equivalenceQueries(t, root), mixedQueries...)
				compared, fromCopy := compareWithReference(t, ix, queries)
				if compared == 0 || fromCopy < len(queries)/2 {
					t.Fatalf("%d hits compared, %d of %d queries from memory", compared, fromCopy, len(queries))
				}
			}
		})
	}
}

// TestPostingsCopySaveGuard: a saved copy is taken only by the index it was built
// from, as it was then. A rebuilt index (same path, same files: the FTS5
// stamp may well be the same), another index of the same vault, and the
// same index after a change all refuse it, and their searches, answered
// by FTS5 or a copy built again, equal the reference.
func TestPostingsCopySaveGuard(t *testing.T) {
	ctx := context.Background()
	root := vaulttest.Copy(t, filepath.Join("..", "testdata", "vault"))
	path := filepath.Join(t.TempDir(), "ix.db")
	ix := open(t, root, path, false)
	syncDisk(t, ix)
	data := savedCopy(t, ix)
	saved, err := DecodePostings(data)
	if err != nil {
		t.Fatal(err)
	}
	oldGen := ix.InstanceID()
	ix.Close()

	reopened := open(t, root, path, false)
	if reopened.InstanceID() != oldGen {
		t.Fatalf("reopening changed the instance id: %q → %q", oldGen, reopened.InstanceID())
	}
	if why, err := reopened.BM25().AdoptPostings(ctx, saved); why != "" || err != nil {
		t.Fatalf("the same index, unchanged, refused its copy: %q, %v", why, err)
	}
	reopened.Close()

	rebuilt, err := Open(ctx, path, reopened.Settings(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rebuilt.Close() })
	syncDisk(t, rebuilt)
	other := open(t, root, filepath.Join(t.TempDir(), "other.db"), false)
	syncDisk(t, other)

	stamp := func(ix *Index) string {
		var s string
		if err := ix.reader(ctx, func(c *sqlite3.Conn) (err error) { s, err = readStamp(c); return err }); err != nil {
			t.Fatal(err)
		}
		return s
	}
	sameStamps := 0
	for name, ix := range map[string]*Index{"rebuilt": rebuilt, "other": other} {
		if ix.InstanceID() == oldGen || ix.InstanceID() == "" {
			t.Fatalf("%s: instance id %q (saved %q)", name, ix.InstanceID(), oldGen)
		}
		if stamp(ix) == saved.m.stamp {
			sameStamps++ // the case the instance id is for
		}
		why, err := ix.BM25().AdoptPostings(ctx, saved)
		if err != nil || !strings.Contains(why, "instance id") {
			t.Fatalf("%s: adopted a copy from another index (why %q, err %v)", name, why, err)
		}
		if ix.bm25.idx.Load() != nil {
			t.Fatalf("%s: holds a copy", name)
		}
		ix.bm25.noQuiet = true
		queries := equivalenceQueries(t, root)
		if compared, _ := compareWithReference(t, ix, queries); compared == 0 {
			t.Fatalf("%s: nothing compared", name)
		}
		ix.bm25.wg.Wait() // the copy the searches built again
		if m := ix.bm25.idx.Load(); m == nil || m == saved.m {
			t.Fatalf("%s: copy not built again", name)
		}
		if _, fromCopy := compareWithReference(t, ix, queries); fromCopy == 0 {
			t.Fatalf("%s: the rebuilt copy answered nothing", name)
		}
	}

	if sameStamps == 0 {
		t.Fatal("no other index had the saved FTS5 stamp: the instance id was not put to the test")
	}

	// The same index after a change: same instance id, another stamp.
	same := open(t, root, filepath.Join(t.TempDir(), "same.db"), false)
	syncDisk(t, same)
	data = savedCopy(t, same)
	write(t, root, "memsave-added.md", "# Added\n\nsourdough starter notes")
	syncDisk(t, same)
	same.bm25.idx.Store(nil)
	if saved, err = DecodePostings(data); err != nil {
		t.Fatal(err)
	}
	if why, err := same.BM25().AdoptPostings(ctx, saved); err != nil || !strings.Contains(why, "changed") {
		t.Fatalf("adopted a copy of the index before a change (why %q, err %v)", why, err)
	}
	same.bm25.idx.Store(saved.m) // a stale copy held is not saved
	w := &statefile.Writer{}
	if ok, err := same.BM25().EncodePostings(ctx, w); ok || err != nil || len(w.Buf) != 0 {
		t.Fatalf("a stale copy was encoded: %v, %v, %d bytes", ok, err, len(w.Buf))
	}
}

// TestPostingsCopySaveDamaged: a truncated or damaged copy is an error (wrapping
// statefile.ErrCorrupt) or, when the damage happens to be consistent, a copy
// whose every index is in range; never a panic.
func TestPostingsCopySaveDamaged(t *testing.T) {
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"), false)
	syncDisk(t, ix)
	data := savedCopy(t, ix)
	for n := 0; n < len(data); n += 1 + n/8 {
		if _, err := DecodePostings(data[:n]); !errors.Is(err, statefile.ErrCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: %v", n, len(data), err)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	rejected := 0
	for range 2000 {
		b := append([]byte(nil), data...)
		for range 1 + rng.IntN(3) {
			b[rng.IntN(len(b))] = byte(rng.Uint32())
		}
		s, err := DecodePostings(b)
		if err != nil {
			if !errors.Is(err, statefile.ErrCorrupt) {
				t.Fatalf("damage: %v, want statefile.ErrCorrupt", err)
			}
			rejected++
			continue
		}
		var sc scratch
		for tok := range s.m.terms {
			s.m.emit(s.m.score(fts5Params, []string{tok}, &sc), 5, func(Hit) bool { return true })
		}
	}
	if rejected == 0 {
		t.Fatal("no damage was detected")
	}
	t.Logf("%d of 2000 damaged copies rejected", rejected)
}

// TestEnsurePostingsConcurrent: saves (EnsurePostings) and searches that start
// background builds at once, under -race: every EnsurePostings returns with a
// current copy, and the searches equal the reference.
func TestEnsurePostingsConcurrent(t *testing.T) {
	ctx := context.Background()
	root := "../testdata/vault"
	ix := open(t, root, filepath.Join(t.TempDir(), "ix.db"), false)
	syncDisk(t, ix)
	ix.bm25.noQuiet = true
	queries := equivalenceQueries(t, root)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			if g%2 == 0 {
				if err := ix.BM25().EnsurePostings(ctx); err != nil {
					errs <- err
					return
				}
				if ix.bm25.idx.Load() == nil {
					errs <- errors.New("EnsurePostings returned without a copy")
					return
				}
				errs <- nil
				return
			}
			for _, q := range queries[:min(len(queries), 20)] {
				if err := ix.BM25().Search(ctx, q, 10, fts5Params, func(Hit) bool { return true }); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	ix.bm25.wg.Wait()
	if _, fromCopy := compareWithReference(t, ix, queries); fromCopy == 0 {
		t.Fatal("no query answered from memory")
	}
}
