package rankers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// quantized is v as the index stores it: one scale and int8 components.
func quantized(v []float32) (float32, []int8) {
	scale, q, err := index.DecodeVector(index.EncodeVector(nil, v))
	if err != nil {
		panic(err) // EncodeVector always writes the 4-byte scale
	}
	return scale, q
}

// TestDot8EqualsDequantizedDot: scoring the stored int8 rows gives, bit
// for bit, the score of the float32 array the rows used to be
// dequantized into at load (scale × component, rounded to float32), for
// every length the unrolled loop handles differently.
func TestDot8EqualsDequantizedDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{1, 7, 8, 9, 16, 100, 384} {
		for trial := range 200 {
			q, v := make([]float32, dim), make([]float32, dim)
			for i := range dim {
				q[i], v[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()*math.Pow(10, float64(trial%7-3)))
			}
			scale, stored := quantized(v)
			deq := make([]float32, dim)
			for i, x := range stored {
				deq[i] = scale * float32(x)
			}
			got, want := dot8(q, stored, scale), dot(q, deq)
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("dim %d trial %d: dot8 = %v (%#x), dot of the dequantized row = %v (%#x)", dim, trial, got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
	}
}

// TestEmbeddingsRowsKeepStoredBytes: rows added and renumbered by Update
// keep their components and scale as stored.
func TestEmbeddingsRowsKeepStoredBytes(t *testing.T) {
	e := &Embeddings{dim: 3, nNotes: 2}
	e.addRow(0.5, []int8{1, -2, 127}, 0, 0)
	e.addRow(0.25, []int8{-128, 0, 3}, 1, 4)
	for r, want := range [][]int8{{1, -2, 127}, {-128, 0, 3}} {
		if got := e.row(r); string(int8Bytes(got)) != string(int8Bytes(want)) {
			t.Errorf("row %d = %v, want %v", r, got, want)
		}
	}
	if got := e.dotRow([]float32{1, 1, 1}, 1); got != 0.25*-128+0+0.25*3 {
		t.Errorf("dotRow = %v", got)
	}
}

func int8Bytes(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// TestDenseCopyScoresAsStored: the float32 copy kept under denseBudget
// scores every row to the bit as the int8 rows do, also when an update
// copies the kept rows' floats instead of computing them again.
func TestDenseCopyScoresAsStored(t *testing.T) {
	e := syntheticEmbeddings(300, 100, 3)
	e.fillDense(nil, nil) // whatever this CPU's scan uses (denseCopyPays)
	// An update that keeps every other row and adds two new ones.
	u := &Embeddings{dim: e.dim, nNotes: e.nNotes}
	var kept []int32
	for r := 0; r < len(e.notes); r += 2 {
		u.addRow(e.scales[r], e.row(r), e.notes[r], e.chunks[r])
		kept = append(kept, int32(r))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2 {
		scale, q := quantized(unit(rng, e.dim))
		u.addRow(scale, q, 0, 9)
	}
	u.fillDense(e, kept)
	q := unit(rng, e.dim)
	for _, x := range []*Embeddings{e, u} {
		for r := range x.notes {
			got, want := x.dotRow(q, r), dot8(q, x.row(r), x.scales[r])
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("row %d: float32 copy %v, stored row %v", r, got, want)
			}
		}
	}
	for _, tt := range []struct {
		rows, dim  int
		int8Kernel bool
		copied     bool
	}{
		{DefaultPrefilterLimit, 2, false, true},
		{DefaultPrefilterLimit + 1, 2, false, false}, // the prefilter confines the scan
		{1000, denseBudget/4/1000 + 1, false, false}, // over the budget
		{1000, 100, true, false},                     // the int8 kernel scans faster
	} {
		if got := denseCopyPays(tt.rows, tt.rows*tt.dim, tt.int8Kernel); got != tt.copied {
			t.Errorf("%d rows × %d, int8 kernel %v: float32 copy %v, want %v", tt.rows, tt.dim, tt.int8Kernel, got, tt.copied)
		}
	}
	x := &Embeddings{dim: 2, vecs: make([]int8, 20), scales: make([]float32, 10)}
	if x.settle(); (x.dense != nil) != denseCopyPays(10, 20, haveDot8Lanes) {
		t.Errorf("settle made the copy %v on a CPU whose int8 kernel is %v", x.dense != nil, haveDot8Lanes)
	}
}
