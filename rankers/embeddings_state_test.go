package rankers

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// savedFixture is dense vectors of 5 notes (note n has n+1 chunks) in a
// model's dimension, with a stamp.
func savedFixture(m *embedtest.Model) *Embeddings {
	rng := rand.New(rand.NewPCG(8, 9))
	e := &Embeddings{model: m, alias: "toy", dim: m.Dim(), nNotes: 5, stamp: "gen\x007\x00fts"}
	for n := range 5 {
		for c := range n + 1 {
			v := make([]int8, m.Dim())
			for i := range v {
				v[i] = int8(rng.IntN(256) - 128)
			}
			e.addRow(rng.Float32(), v, int32(n), int32(c))
		}
	}
	return e
}

func chunksOfFixture(n int) int { return n + 1 }

// TestVectorStateRoundTrip: the vectors saved and read back, for the same
// stamp and model, are the rows saved, in order, to the bit; another
// stamp, model or snapshot, or a row pointing past its note's chunks, is
// refused with the reason.
func TestVectorStateRoundTrip(t *testing.T) {
	m := &embedtest.Model{Name: "a"}
	e := savedFixture(m)
	w := &statefile.Writer{}
	if !e.EncodeState(w) {
		t.Fatal("not encoded")
	}
	if (&Embeddings{model: m}).EncodeState(&statefile.Writer{}) {
		t.Fatal("vectors without a stamp were encoded")
	}
	s, err := DecodeVectorState(w.Buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Embeddings(e.stamp, m, "toy", 5, chunksOfFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{{"vecs", got.vecs, e.vecs}, {"scales", got.scales, e.scales}, {"notes", got.notes, e.notes}, {"chunks", got.chunks, e.chunks}} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Fatalf("%s differ", f.name)
		}
	}
	if got.Stamp() != e.stamp || got.Len() != e.Len() || got.Model() != e.Model() {
		t.Fatalf("stamp %q, %d rows, model %v", got.Stamp(), got.Len(), got.Model())
	}
	refused := []struct {
		name   string
		stamp  string
		model  *embedtest.Model
		notes  int
		chunks func(int) int
		is     error
	}{
		{"another stamp", "gen\x008\x00fts", m, 5, chunksOfFixture, nil},
		{"no stamp", "", m, 5, chunksOfFixture, nil},
		{"another model", e.stamp, &embedtest.Model{Name: "b"}, 5, chunksOfFixture, ErrModelMismatch},
		{"another snapshot", e.stamp, m, 6, chunksOfFixture, statefile.ErrCorrupt},
		{"fewer chunks", e.stamp, m, 5, func(n int) int { return n }, statefile.ErrCorrupt},
	}
	for _, r := range refused {
		s, err := DecodeVectorState(w.Buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Embeddings(r.stamp, r.model, "toy", r.notes, r.chunks)
		if err == nil || (r.is != nil && !errors.Is(err, r.is)) {
			t.Errorf("%s: %v", r.name, err)
		}
	}
}

// TestVectorStateDamaged: every cut of the section and every byte
// changed is an error or, where the layout still parses, rows that
// Embeddings checks; never a panic or an allocation beyond the data.
func TestVectorStateDamaged(t *testing.T) {
	m := &embedtest.Model{Name: "a"}
	w := &statefile.Writer{}
	savedFixture(m).EncodeState(w)
	for n := range len(w.Buf) {
		if _, err := DecodeVectorState(w.Buf[:n], nil); err == nil {
			t.Fatalf("cut at %d of %d: no error", n, len(w.Buf))
		}
	}
	for i := range w.Buf {
		for _, x := range []byte{0, 0xff, w.Buf[i] ^ 1} {
			b := append([]byte(nil), w.Buf...)
			b[i] = x
			s, err := DecodeVectorState(b, nil)
			if err != nil {
				continue
			}
			emb, err := s.Embeddings(s.stamp, m, "toy", 5, chunksOfFixture)
			if err != nil {
				continue
			}
			// Taken: then every row is a chunk of the snapshot, and a
			// search over them is safe.
			for r, n := range emb.notes {
				if n < 0 || n >= 5 || emb.chunks[r] < 0 || int(emb.chunks[r]) >= chunksOfFixture(int(n)) {
					t.Fatalf("byte %d = %#x: row %d of note %d chunk %d taken", i, x, r, n, emb.chunks[r])
				}
			}
			if len(emb.vecs) != len(emb.notes)*emb.dim || len(emb.scales) != len(emb.notes) {
				t.Fatalf("byte %d = %#x: %d components and %d scales for %d rows", i, x, len(emb.vecs), len(emb.scales), len(emb.notes))
			}
			emb.Rank(context.Background(), Request{Query: "garden", Limit: 3})
		}
	}
}

// TestVectorStateNoRows: vectors of no row (an index whose chunks have
// none yet) round-trip to an empty signal, which ranks nothing and fails
// saying that no chunk has a vector.
func TestVectorStateNoRows(t *testing.T) {
	m := &embedtest.Model{Name: "a"}
	w := &statefile.Writer{}
	if !(&Embeddings{model: m, dim: m.Dim(), nNotes: 3, stamp: "s"}).EncodeState(w) {
		t.Fatal("not encoded")
	}
	s, err := DecodeVectorState(w.Buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Embeddings("s", m, "toy", 3, chunksOfFixture)
	if err != nil || e.Len() != 0 {
		t.Fatalf("%v, %v", e, err)
	}
	var partial *Partial
	if got, err := e.Rank(context.Background(), Request{Query: "garden", Limit: 3}); err == nil || errors.As(err, &partial) || len(got) != 0 || !strings.Contains(err.Error(), "0 of 6") {
		t.Fatalf("ranked %v, %v; want nothing and an error (not a Partial: the signal took no part) naming 0 of 6 chunks", got, err)
	}
}
