package bert

// The arm64 assembly is generated: gen_arm64.py encodes the NEON
// instructions the Go assembler lacks.
//go:generate python3 gen_arm64.py .

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The micro-kernel computes an mr×nr block of C += A·B: mr rows of A
// broadcast one value at a time against nr columns of a packed panel of
// B. 6×16 is the block that fills AVX2's sixteen registers: twelve
// accumulators (6 rows × 2 vectors of 8), two of B, one broadcast.
const (
	mr = 6
	nr = 16
)

// mc is how many rows one task of a parallel multiply takes: 48 rows
// of a 1536-wide A (295 KB) stay in L2 while every panel streams past.
const mc = 8 * mr

// panels is a k×n matrix B packed for the kernel: column panels of nr
// columns, each stored k rows of nr contiguous values (the last panel
// zero-padded), so the kernel reads B strictly sequentially.
type panels struct {
	k, n int
	data []float32
}

// count is the number of panels.
func (p *panels) count() int { return (p.n + nr - 1) / nr }

// panel is panel j's k×nr values.
func (p *panels) panel(j int) []float32 { return p.data[j*p.k*nr : (j+1)*p.k*nr] }

// packInto packs the k×n matrix whose element (r, c) is at(r, c) into
// dst (grown as needed) and returns it.
func packInto(dst *panels, k, n int, at func(r, c int) float32) {
	size := (n + nr - 1) / nr * k * nr
	if cap(dst.data) < size {
		dst.data = make([]float32, size)
	}
	dst.k, dst.n, dst.data = k, n, dst.data[:size]
	for j := 0; j*nr < n; j++ {
		pj := dst.data[j*k*nr : (j+1)*k*nr]
		for r := range k {
			row := pj[r*nr : r*nr+nr]
			for c := range nr {
				if col := j*nr + c; col < n {
					row[c] = at(r, col)
				} else {
					row[c] = 0
				}
			}
		}
	}
}

// pack packs a row-major k×n matrix (a layer's weight, [in][out]).
func pack(w []float32, k, n int) *panels {
	p := &panels{}
	packInto(p, k, n, func(r, c int) float32 { return w[r*n+c] })
	return p
}

// matmul computes C += A·B for m rows: A is m×b.k with row stride lda,
// C is m×b.n with row stride ldc. It runs in the calling goroutine.
func matmul(k kernelFunc, c []float32, ldc int, a []float32, lda, m int, b *panels) {
	var edge edgeBuf
	matmulBlock(k, c, ldc, a, lda, 0, m, b, 0, b.count(), &edge)
}

// matmulPar is matmul shared among at most GOMAXPROCS goroutines, by
// blocks of rows and, when there are few rows (a query), by panels.
func matmulPar(k kernelFunc, c []float32, ldc int, a []float32, lda, m int, b *panels) {
	workers := runtime.GOMAXPROCS(0)
	rowBlocks := (m + mc - 1) / mc
	np := b.count()
	// Enough tasks that the goroutines finish together.
	groups := min(np, max(1, (4*workers+rowBlocks-1)/rowBlocks))
	per := (np + groups - 1) / groups
	groups = (np + per - 1) / per
	parallel(rowBlocks*groups, func(t int) {
		var edge edgeBuf
		r0 := t / groups * mc
		g := t % groups
		matmulBlock(k, c, ldc, a, lda, r0, min(m, r0+mc), b, g*per, min(np, (g+1)*per), &edge)
	})
}

// edgeBuf holds a block of C narrower than nr, which the kernel cannot
// write in place.
type edgeBuf struct {
	c [mr * nr]float32
}

// matmulBlock computes rows [r0, r1) of panels [j0, j1) of C: for each
// panel, which stays in cache, every block of up to mr rows.
func matmulBlock(kern kernelFunc, c []float32, ldc int, a []float32, lda, r0, r1 int, b *panels, j0, j1 int, e *edgeBuf) {
	k := b.k
	for j := j0; j < j1; j++ {
		bp := b.panel(j)
		col := j * nr
		cols := min(nr, b.n-col)
		for r := r0; r < r1; r += mr {
			rows := min(mr, r1-r)
			if cols == nr {
				kern(k, a[r*lda:], lda, bp, c[r*ldc+col:], ldc, rows)
				continue
			}
			clear(e.c[:])
			for i := range rows {
				copy(e.c[i*nr:i*nr+cols], c[(r+i)*ldc+col:(r+i)*ldc+col+cols])
			}
			kern(k, a[r*lda:], lda, bp, e.c[:], nr, rows)
			for i := range rows {
				copy(c[(r+i)*ldc+col:(r+i)*ldc+col+cols], e.c[i*nr:i*nr+cols])
			}
		}
	}
}

// kernelFunc computes C[0:rows][0:nr] += A[0:rows][0:k] · panel, A with
// row stride lda, C with row stride ldc, rows from 1 to mr.
type kernelFunc func(k int, a []float32, lda int, b []float32, c []float32, ldc, rows int)

// namedKernel is a micro-kernel, its name, and the vector functions of
// the same instruction set: exp, GELU, and the softmax of row[:n] (row
// longer than n, up to a multiple of 16, as attention lays scores out),
// all in place.
type namedKernel struct {
	name    string
	f       kernelFunc
	exp     func(v []float32)
	gelu    func(v []float32)
	softmax func(row []float32, n int, scale float32)
}

// goKernel is the plain-Go kernel and functions.
var goKernel = namedKernel{"go", kernelGo, expVec, gelu, softmaxGo}

// softmaxGo is softmax over row[:n] in plain Go.
func softmaxGo(row []float32, n int, scale float32) { softmax(row[:n], scale, expVec) }

// expVec sets v[i] = e^v[i].
func expVec(v []float32) {
	for i, x := range v {
		v[i] = exp32(x)
	}
}

// kernelGo is the plain-Go micro-kernel.
func kernelGo(k int, a []float32, lda int, b []float32, c []float32, ldc, rows int) {
	var acc [mr][nr]float32
	b = b[:k*nr]
	for p := 0; p < k; p++ {
		bv := (*[nr]float32)(b[p*nr:])
		for i := range rows {
			x := a[i*lda+p]
			row := &acc[i]
			for j := range nr {
				row[j] += x * bv[j]
			}
		}
	}
	for i := range rows {
		ci := c[i*ldc : i*ldc+nr]
		for j := range nr {
			ci[j] += acc[i][j]
		}
	}
}

// parallel runs f(0) … f(n-1) on at most GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
