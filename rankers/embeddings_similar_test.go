package rankers

import (
	"fmt"
	"math"
	"testing"
)

func TestNoteCentroids(t *testing.T) {
	s := float32(math.Sqrt(0.5))
	e := &Embeddings{dim: 2, nNotes: 4}
	// note 0: (1,0) and (0,1) → centroid (s,s); note 1: (1,0);
	// note 2: (1,0) and (-1,0) cancel out; note 3 has no vectors.
	for _, r := range []struct {
		vec         []float32
		note, chunk int32
	}{{[]float32{1, 0}, 0, 0}, {[]float32{0, 1}, 0, 1}, {[]float32{1, 0}, 1, 0}, {[]float32{1, 0}, 2, 0}, {[]float32{-1, 0}, 2, 1}} {
		scale, q := quantized(r.vec)
		e.addRow(scale, q, r.note, r.chunk)
	}
	c := e.NoteCentroids()
	for note, want := range []bool{true, true, false, false} {
		if c.Has(note) != want {
			t.Errorf("Has(%d) = %v", note, !want)
		}
	}
	if c.Has(-1) || c.Has(4) {
		t.Error("Has out of range")
	}
	dst := []float32{9, 9, 9, 9}
	if !c.Cosines(0, dst) {
		t.Fatal("Cosines(0) = false")
	}
	for i, want := range []float32{1, s, 0, 0} {
		if math.Abs(float64(dst[i]-want)) > 1e-6 {
			t.Errorf("cosine(0,%d) = %v, want %v", i, dst[i], want)
		}
	}
	if c.Cosines(3, dst) || c.Cosines(2, dst) {
		t.Error("Cosines of a note without a centroid = true")
	}
}

// BenchmarkNoteCentroidsCosines: one note against every centroid (13k
// notes of 3 chunks, 256 and 384 dimensions).
func BenchmarkNoteCentroidsCosines(b *testing.B) {
	for _, dim := range []int{256, 384} {
		c := syntheticEmbeddings(13415*3, dim, 3).NoteCentroids()
		dst := make([]float32, len(c.has))
		b.Run(fmt.Sprintf("notes=13415/dim=%d", dim), func(b *testing.B) {
			i := 0
			for b.Loop() {
				c.Cosines(i%len(c.has), dst)
				i++
			}
		})
	}
}
