package rankers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotRowsMatchesDot: the batch kernel gives dot's float32 to the bit
// for every dimension (below, at and between multiples of eight) and row
// count (around the 4-row step and the batch size), on values with zeros
// of both signs, subnormals and wide exponents.
func TestDotRowsMatchesDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	value := func() float32 {
		switch r.IntN(10) {
		case 0:
			return 0
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return float32(r.NormFloat64()) * 1e-39 // subnormal
		case 3:
			return float32(r.NormFloat64()) * 1e18
		default:
			return float32(r.NormFloat64())
		}
	}
	dims := []int{1, 7, 8, 9, 15, 16, 17, 31, 64, 100, 101, 384}
	counts := []int{0, 1, 3, 4, 5, 63, 64, 65, 131}
	for _, dim := range dims {
		for _, n := range counts {
			t.Run(fmt.Sprintf("dim=%d/rows=%d", dim, n), func(t *testing.T) {
				q := make([]float32, dim)
				rows := make([]float32, n*dim)
				for i := range q {
					q[i] = value()
				}
				for i := range rows {
					rows[i] = value()
				}
				got := make([]float32, n)
				dotRows(q, rows, dim, got)
				for i := range n {
					want := dot(q, rows[i*dim:(i+1)*dim])
					if math.Float32bits(got[i]) != math.Float32bits(want) {
						t.Fatalf("row %d: dotRows %v (%08x), dot %v (%08x)", i, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
					}
				}
			})
		}
	}
}

// TestDot8RowsMatchesDot8: the int8 kernel gives dot8's float32 to the
// bit, and so dot's over the dequantized rows (as settle makes them).
func TestDot8RowsMatchesDot8(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{1, 7, 8, 9, 17, 64, 100, 101, 384} {
		for _, n := range []int{0, 1, 3, 4, 5, 64, 65, 131} {
			t.Run(fmt.Sprintf("dim=%d/rows=%d", dim, n), func(t *testing.T) {
				q := make([]float32, dim)
				for i := range q {
					q[i] = float32(r.NormFloat64())
				}
				rows, scales := make([]int8, n*dim), make([]float32, n)
				for i := range rows {
					rows[i] = int8(r.IntN(256) - 128)
				}
				for i := range scales {
					scales[i] = float32(r.ExpFloat64()) / 127
				}
				got := make([]float32, n)
				dot8Rows(q, rows, scales, dim, got)
				for i := range n {
					row := rows[i*dim : (i+1)*dim]
					want := dot8(q, row, scales[i])
					deq := make([]float32, dim)
					for j, x := range row {
						deq[j] = scales[i] * float32(x)
					}
					if math.Float32bits(got[i]) != math.Float32bits(want) || math.Float32bits(want) != math.Float32bits(dot(q, deq)) {
						t.Fatalf("row %d: dot8Rows %v, dot8 %v, dot %v", i, got[i], want, dot(q, deq))
					}
				}
			})
		}
	}
}

// BenchmarkDotRows: one dense scan of zettelkasten's size (17,311 chunk
// vectors of 100 dimensions), the kernel against dot row by row.
func BenchmarkDotRows(b *testing.B) {
	const rowsN, dim = 17311, 100
	r := rand.New(rand.NewPCG(3, 4))
	q, rows := unit(r, dim), make([]float32, rowsN*dim)
	for i := range rowsN {
		copy(rows[i*dim:], unit(r, dim))
	}
	out := make([]float32, rowsN)
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			dotRows(q, rows, dim, out)
		}
	})
	rows8, scales := make([]int8, rowsN*dim), make([]float32, rowsN)
	for i := range rowsN {
		scales[i], _ = quantized(rows[i*dim : (i+1)*dim])
		_, q8 := quantized(rows[i*dim : (i+1)*dim])
		copy(rows8[i*dim:], q8)
	}
	b.Run("kernel-int8", func(b *testing.B) {
		for b.Loop() {
			dot8Rows(q, rows8, scales, dim, out)
		}
	})
	b.Run("dot", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = dot(q, rows[i*dim:(i+1)*dim])
			}
		}
	})
}
