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
