package rankers

import (
	"math"
	"runtime"
	"sync"
)

// NoteCentroids holds one vector per note: the mean of its chunk vectors,
// scaled to unit length. The cosine of two centroids compares whole notes
// (a note about two topics sits between them), at the cost of one dot
// product per note instead of one per pair of chunks. Build it once per
// embeddings table with [Embeddings.NoteCentroids]; it is immutable and
// safe for concurrent use.
type NoteCentroids struct {
	dim  int
	vecs []float32 // notes × dim; zero rows for notes without vectors
	has  []bool
}

// NoteCentroids averages the chunk vectors of every note.
func (e *Embeddings) NoteCentroids() *NoteCentroids {
	c := &NoteCentroids{dim: e.dim, vecs: make([]float32, e.nNotes*e.dim), has: make([]bool, e.nNotes)}
	sums := make([]float64, e.nNotes*e.dim) // float64: many chunks add up without drift
	for r, n := range e.notes {
		sum := sums[int(n)*e.dim : (int(n)+1)*e.dim]
		scale := e.scales[r]
		for i, x := range e.row(r) {
			sum[i] += float64(scale * float32(x))
		}
		c.has[n] = true
	}
	for n := range e.nNotes {
		sum := sums[n*e.dim : (n+1)*e.dim]
		var norm float64
		for _, x := range sum {
			norm += x * x
		}
		if norm == 0 {
			c.has[n] = false // chunks that cancel out say nothing
			continue
		}
		inv := 1 / math.Sqrt(norm)
		for i, x := range sum {
			c.vecs[n*c.dim+i] = float32(x * inv)
		}
	}
	return c
}

// Has reports whether a note has a centroid (some chunk vectors that do
// not cancel out).
func (c *NoteCentroids) Has(note int) bool { return note >= 0 && note < len(c.has) && c.has[note] }

// Cosines sets dst[i] to the cosine between note's centroid and note i's
// (0 for notes without vectors); dst must hold one value per note. It
// returns false, leaving dst untouched, when note has no centroid.
func (c *NoteCentroids) Cosines(note int, dst []float32) bool {
	if !c.Has(note) {
		return false
	}
	q := c.vecs[note*c.dim : (note+1)*c.dim]
	workers := 1
	if len(c.vecs) >= 1<<20 { // big tables: on all cores, like Embeddings.Rank
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(c.has)/workers, (w+1)*len(c.has)/workers
		wg.Go(func() {
			for n := lo; n < hi; n++ {
				if c.has[n] {
					dst[n] = dot(q, c.vecs[n*c.dim:(n+1)*c.dim])
				} else {
					dst[n] = 0
				}
			}
		})
	}
	wg.Wait()
	return true
}
