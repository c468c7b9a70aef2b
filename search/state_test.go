package search_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/statefile"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

const stateKey = "test build; vault; options"

// TestRestoreStateEqualsSaved saves engines (fresh ones, and ones that
// went through live updates and so carry dead slots) and checks that the
// restored engine is the saved one: every note field, every chunk, and
// every hit with bit-identical scores (fused and per signal).
func TestRestoreStateEqualsSaved(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	for name, root := range stateVaults(t) {
		t.Run(name, func(t *testing.T) {
			eng := loadEngine(t, root, an)
			m := vaulttest.NewMutator(t, root, 5)
			for round := range 4 {
				data, err := encodeState(ctx, eng)
				if err != nil {
					t.Fatal(err)
				}
				// As saved (postings read in place), and one byte off the
				// alignment (postings copied): both are the saved engine.
				misaligned := make([]byte, len(data)+1)[1:]
				copy(misaligned, data)
				for _, b := range [][]byte{data, misaligned} {
					got, err := search.RestoreState(ctx, b, stateKey, eng.Snapshot().Root, nil, an, search.Options{})
					if err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
					if d := exactDiff(ctx, got, eng); d != "" {
						t.Fatalf("round %d: %s", round, d)
					}
				}
				// Live changes leave dead TF-IDF slots: the next round saves those too.
				eng = applyPaths(t, eng, append(m.Step(), m.Step()...))
			}
		})
	}
}

// TestRestoreStateThenCatchUp is the warm start: an engine saved, the
// vault changed while nothing ran, the state restored and brought up to
// date with what changed on disk, compared with an engine built from the
// files.
func TestRestoreStateThenCatchUp(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	for name, root := range stateVaults(t) {
		for _, seed := range []uint64{21, 22} {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				root := vaulttest.Copy(t, root)
				saved := loadEngine(t, root, an)
				data, err := encodeState(ctx, saved)
				if err != nil {
					t.Fatal(err)
				}
				m := vaulttest.NewMutator(t, root, seed)
				for range 6 {
					m.Step()
				}
				warm, err := search.RestoreState(ctx, data, stateKey, saved.Snapshot().Root, nil, an, search.Options{})
				if err != nil {
					t.Fatal(err)
				}
				changed, err := warm.Snapshot().Changed(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(changed) == 0 {
					t.Fatal("the mutator changed nothing that Changed sees")
				}
				warm = applyPaths(t, warm, changed)
				want := loadEngine(t, root, an)
				if d := enginetest.Diff(ctx, warm, want, enginetest.Queries); d != "" {
					t.Fatal(d)
				}
				if enginetest.Diff(ctx, saved, want, enginetest.Queries) == "" {
					t.Fatal("the saved engine already equals the changed vault: the test proves nothing")
				}
			})
		}
	}
}

// TestRestoreStateRejects feeds damaged and foreign states: each is an
// error (statefile.ErrCorrupt or ErrStateMismatch), never a panic or an
// engine.
func TestRestoreStateRejects(t *testing.T) {
	ctx := context.Background()
	an := analysis.New()
	eng := loadEngine(t, vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")), an)
	data, err := encodeState(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	restore := func(b []byte, key string) error {
		_, err := search.RestoreState(ctx, b, key, eng.Snapshot().Root, nil, an, search.Options{})
		return err
	}
	if err := restore(data, "another build"); !errors.Is(err, search.ErrStateMismatch) {
		t.Fatalf("other key: %v, want ErrStateMismatch", err)
	}
	cases := map[string][]byte{"empty": nil, "magic only": data[:30]}
	for _, n := range []int{1, 7, 100, len(data) / 2, len(data) - 5} {
		cases[fmt.Sprintf("truncated by %d bytes", n)] = data[:len(data)-n]
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	cases["one bit flipped"] = flipped
	for name, b := range cases {
		if err := restore(b, stateKey); !errors.Is(err, statefile.ErrCorrupt) {
			t.Errorf("%s: %v, want statefile.ErrCorrupt", name, err)
		}
	}
	// Damage past the checksum (recomputed): the decoder's own checks must
	// hold, whatever the bytes say.
	rng := rand.New(rand.NewPCG(1, 2))
	rejected := 0
	for range 400 {
		b := append([]byte(nil), data[:len(data)-4]...)
		for range 1 + rng.IntN(3) {
			b[30+rng.IntN(len(b)-30)] = byte(rng.Uint32())
		}
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
		if restore(b, stateKey) != nil {
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatal("no random damage was detected")
	}
}

func stateVaults(t *testing.T) map[string]string {
	gen := t.TempDir()
	vaulttest.Generate(t, gen, 400, 3)
	return map[string]string{
		"fixture":   vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")),
		"generated": gen,
	}
}

// exactDiff compares a restored engine with the saved one: every note
// field deeply, the chunks, and each query's hits with identical scores.
func exactDiff(ctx context.Context, got, want *search.Engine) string {
	if d := enginetest.Diff(ctx, got, want, enginetest.Queries); d != "" {
		return d
	}
	gs, ws := got.Snapshot(), want.Snapshot()
	for i, n := range ws.Notes {
		if !reflect.DeepEqual(gs.Notes[i], n) {
			return "note " + n.Path + " differs after restore"
		}
		if !reflect.DeepEqual(got.NoteChunks(i), want.NoteChunks(i)) {
			return "chunks of " + n.Path + " differ after restore"
		}
	}
	// fmt prints nil and empty slices and maps alike, as they behave.
	if fmt.Sprint(gs.Attachments, gs.Warnings, gs.Privacy) != fmt.Sprint(ws.Attachments, ws.Warnings, ws.Privacy) {
		return fmt.Sprintf("attachments, warnings or privacy differ after restore:\n%+v\n%+v\n%+v\n%+v\n%+v\n%+v", gs.Attachments, ws.Attachments, gs.Warnings, ws.Warnings, gs.Privacy, ws.Privacy)
	}
	for _, q := range enginetest.Queries {
		for _, gran := range []string{search.GranularityNote, search.GranularityBlock} {
			req := search.Request{Query: q, Limit: 30, Granularity: gran, GraphBoost: true}
			a, errA := got.Search(ctx, req)
			b, errB := want.Search(ctx, req)
			if errA != nil || errB != nil {
				return fmt.Sprintf("query %q: %v, %v", q, errA, errB)
			}
			if !reflect.DeepEqual(a.Hits, b.Hits) {
				return fmt.Sprintf("query %q (%s): hits or per-signal scores differ", q, gran)
			}
		}
	}
	return ""
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit, n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.n+len(b) > f.limit {
		k := f.limit - f.n
		f.n = f.limit
		return k, errDiskFull
	}
	f.n += len(b)
	return len(b), nil
}

// TestWriteStateReportsWriteErrors: a write that fails anywhere in the
// state (the header, either section, the checksum) is WriteState's error,
// and the count says how far it got.
func TestWriteStateReportsWriteErrors(t *testing.T) {
	ctx := context.Background()
	eng := loadEngine(t, vaulttest.Copy(t, filepath.Join("..", "testdata", "vault")), analysis.New())
	data, err := encodeState(ctx, eng)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 10, len(data) / 2, len(data) - 4, len(data) - 1} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			n, err := eng.WriteState(ctx, stateKey, &failingWriter{limit: limit})
			if !errors.Is(err, errDiskFull) || n != int64(limit) {
				t.Fatalf("WriteState over %d of %d bytes = %d, %v; want %d, disk full", limit, len(data), n, err, limit)
			}
		})
	}
}
