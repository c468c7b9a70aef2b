package index

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/embedtest"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func diskSource(t *testing.T, ix *Index) Source {
	t.Helper()
	src, err := ix.DiskSource(context.Background(), 0, vault.PDFReader{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func build(t *testing.T, ix *Index, m embed.Embedder, batch int) EmbedStats {
	t.Helper()
	st, err := ix.Vectors().Build(context.Background(), diskSource(t, ix), m, "toy", batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func vectorCount(t *testing.T, ix *Index) int {
	t.Helper()
	n := 0
	if err := ix.Vectors().Each(context.Background(), func(ChunkRef, float32, []int8) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBuildEmbeddingsIncremental(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	ix := open(t, root, filepath.Join(t.TempDir(), "ix.db"), false)
	chunks := syncDisk(t, ix).Chunks
	m := &embedtest.Model{Name: "a"}
	st := build(t, ix, m, 7)
	// Identical passages share one vector, so Embedded may be below chunks.
	if st.Embedded == 0 || st.Embedded > chunks || st.Kept != 0 || st.Replaced != 0 || st.Model != m.ID() {
		t.Fatalf("first build %+v (%d chunks)", st, chunks)
	}
	if got := vectorCount(t, ix); got != chunks {
		t.Fatalf("%d chunks have vectors, want %d", got, chunks)
	}
	if id, alias, dim, _ := ix.Vectors().ModelAlias(context.Background()); id != m.ID() || alias != "toy" || dim != embedtest.Dim {
		t.Fatalf("recorded model %q %q %d", id, alias, dim)
	}
	if st := build(t, ix, m, 7); st.Embedded != 0 || st.Kept != chunks {
		t.Fatalf("second build %+v: nothing should be embedded again", st)
	}
	// Edit one note: only its changed chunks are embedded again.
	p := filepath.Join(root, "Cooking", "Knife Skills.md")
	if err := os.WriteFile(p, []byte("# Knife Skills\n\nA whetstone routine for sourdough loaf slicing.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	syncDisk(t, ix)
	st = build(t, ix, m, 7)
	if st.Embedded != 1 || st.Pruned == 0 {
		t.Fatalf("after one edit %+v, want exactly 1 chunk embedded and the old vector pruned", st)
	}
	// Another model replaces every vector and says so.
	other := &embedtest.Model{Name: "b"}
	st = build(t, ix, other, 50)
	if st.Replaced == 0 || st.Embedded != vectorCount(t, ix) {
		t.Fatalf("model change %+v", st)
	}
}

func TestBuildEmbeddingsResumes(t *testing.T) {
	root := vaulttest.Copy(t, "../testdata/vault")
	ix := open(t, root, filepath.Join(t.TempDir(), "ix.db"), false)
	chunks := syncDisk(t, ix).Chunks
	boom := errors.New("provider down")
	m := &embedtest.Model{Name: "a"}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := ix.Vectors().Build(ctx, diskSource(t, ix), m, "toy", 5, func(done, total int) {
		if done == 0 {
			return // the start
		}
		calls++
		if calls == 3 {
			cancel() // as if killed after three batches
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	partial := vectorCount(t, ix)
	if partial != 15 {
		t.Fatalf("%d vectors after three batches of 5", partial)
	}
	failing := &embedtest.Model{Name: "a", Fail: boom}
	if _, err := ix.Vectors().Build(context.Background(), diskSource(t, ix), failing, "toy", 5, nil); !errors.Is(err, boom) {
		t.Fatalf("failing provider: err = %v", err)
	}
	st := build(t, ix, m, 5)
	if st.Embedded+partial != chunks || st.Kept != partial {
		t.Fatalf("resumed build %+v after %d of %d", st, partial, chunks)
	}
}

func TestBuildEmbeddingsRejectsBadVectors(t *testing.T) {
	ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"), false)
	syncDisk(t, ix)
	bad := &embedtest.Model{Name: "a", WrongDim: 3}
	if _, err := ix.Vectors().Build(context.Background(), diskSource(t, ix), bad, "toy", 5, nil); !errors.Is(err, embed.ErrDimension) {
		t.Fatalf("err = %v, want ErrDimension", err)
	}
	if n := vectorCount(t, ix); n != 0 {
		t.Fatalf("%d bad vectors stored", n)
	}
}

func TestVectorEncoding(t *testing.T) {
	for _, v := range [][]float32{{0.6, -0.8}, {1, 0, 0, 0}, {0, 0}, {0.01, -0.02, 0.999}} {
		scale, q, err := DecodeVector(EncodeVector(nil, v))
		if err != nil || len(q) != len(v) {
			t.Fatalf("%v: %v %v", v, q, err)
		}
		for i := range v {
			if got := scale * float32(q[i]); math.Abs(float64(got-v[i])) > 0.005 {
				t.Errorf("%v[%d] → %v", v, i, got)
			}
		}
	}
	if _, _, err := DecodeVector([]byte{1, 2}); err == nil {
		t.Fatal("short blob accepted")
	}
}

// countingModel counts the texts it embeds.
type countingModel struct {
	*embedtest.Model
	texts int
}

func (c *countingModel) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	c.texts += len(texts)
	return c.Model.Embed(ctx, texts, kind)
}

// storedVectors maps each chunk (path and index) to its stored bytes.
func storedVectors(t *testing.T, ix *Index) map[ChunkRef][]byte {
	t.Helper()
	out := map[ChunkRef][]byte{}
	err := ix.Vectors().Each(context.Background(), func(ref ChunkRef, scale float32, vec []int8) error {
		b := []byte(fmt.Sprint(scale))
		for _, v := range vec {
			b = append(b, byte(v))
		}
		out[ref] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBuildEmbeddingsInterruptedAnywhere stops a build after every
// batch in turn, as a killed run stops: the rerun embeds exactly the
// chunks the first run did not store, none twice, says so from its
// first progress report, and the vectors end as an uninterrupted
// build's, chunk for chunk.
func TestBuildEmbeddingsInterruptedAnywhere(t *testing.T) {
	const batch = 4
	ref := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "ref.db"), false)
	syncDisk(t, ref)
	whole := &countingModel{Model: &embedtest.Model{Name: "a"}}
	n := build(t, ref, whole, batch).Embedded
	want := storedVectors(t, ref)
	if n <= 2*batch {
		t.Fatalf("only %d chunks: too few batches to interrupt", n)
	}
	for stop := 1; stop*batch < n; stop++ {
		ix := open(t, "../testdata/vault", filepath.Join(t.TempDir(), "ix.db"), false)
		syncDisk(t, ix)
		ctx, cancel := context.WithCancel(context.Background())
		first := &countingModel{Model: &embedtest.Model{Name: "a"}}
		batches := 0
		_, err := ix.Vectors().Build(ctx, diskSource(t, ix), first, "toy", batch, func(done, _ int) {
			if done == 0 {
				return // the start
			}
			if batches++; batches == stop {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stopped after batch %d: err %v", stop, err)
		}
		kept := vectorCount(t, ix)
		rest := &countingModel{Model: &embedtest.Model{Name: "a"}}
		var start [2]int
		st, err := ix.Vectors().Build(context.Background(), diskSource(t, ix), rest, "toy", batch, func(done, total int) {
			if start == [2]int{} {
				start = [2]int{done, total}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if start != [2]int{0, n - stop*batch} {
			t.Errorf("stopped after batch %d: the rerun's progress started at %d/%d, want 0/%d", stop, start[0], start[1], n-stop*batch)
		}
		if first.texts != stop*batch || rest.texts != n-stop*batch || st.Embedded != rest.texts || st.Kept != kept {
			t.Errorf("stopped after batch %d: %d texts embedded, then %d (stats %+v); want %d then %d",
				stop, first.texts, rest.texts, st, stop*batch, n-stop*batch)
		}
		if got := storedVectors(t, ix); !reflect.DeepEqual(got, want) {
			t.Errorf("stopped after batch %d: the vectors differ from an uninterrupted build's (%d vs %d chunks)", stop, len(got), len(want))
		}
	}
}
