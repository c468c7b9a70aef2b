package bert

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
)

// Pooling is how token vectors become one sentence vector.
type Pooling int

// Poolings, as sentence-transformers names them.
const (
	// Mean averages the vectors of the sequence's tokens.
	Mean Pooling = iota
	// CLS takes the first token's vector.
	CLS
)

// ErrInput marks a sequence Forward cannot run: empty, longer than the
// model's positions, or with a token id outside its vocabulary.
var ErrInput = errors.New("bert: bad input")

// Encoder is a BERT encoder ready to run: its weight matrices packed for
// the kernel. It is safe for concurrent use; runs are serialised, since
// each already uses every core.
type Encoder struct {
	cfg            Config
	word, pos, typ []float32
	embNorm        Norm
	layers         []layer
	kern           namedKernel
	mu             sync.Mutex
	scratch        sync.Pool // *attnScratch
	scale          float32
	hd             int
	// bufs are the activations of the last run, kept for the next (under
	// mu): allocated per run, they kept the garbage collector busy.
	bufs struct{ qkv, ctx, tmp, ff []float32 }
}

// layer is one encoder layer with packed matrices; Q, K and V are one
// hidden×3·hidden multiply.
type layer struct {
	qkv, o, ff1, ff2     *panels
	qkvB, oB, ff1B, ff2B []float32
	attnNorm, ffNorm     Norm
}

// New packs w's matrices and returns the encoder; a tensor of the wrong
// size is an error wrapping ErrWeights. It keeps w's embedding tables,
// norms and biases; the matrices it copies, unless w.Owned gives them
// to it.
func New(w Weights) (*Encoder, error) {
	return newEncoder(w, kernels()[0])
}

// NewWithKernel is New with the named kernel set ("avx512", "avx2" or
// "go", see Kernels); "" is the fastest this CPU runs. A set this CPU
// cannot run is an error wrapping ErrKernel: "go" runs everywhere, and
// gives the vectors a CPU without AVX2 computes.
func NewWithKernel(w Weights, name string) (*Encoder, error) {
	ks := kernels()
	if name == "" {
		return newEncoder(w, ks[0])
	}
	for _, k := range ks {
		if k.name == name {
			return newEncoder(w, k)
		}
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	return nil, fmt.Errorf("%w: %q; this CPU runs %s", ErrKernel, name, strings.Join(names, ", "))
}

// ErrKernel marks a kernel set this CPU cannot run, or an unknown one.
var ErrKernel = errors.New("bert: no such kernel set")

// Kernels names the kernel sets this CPU runs, fastest first; "go", the
// plain-Go one, is always last.
func Kernels() []string {
	var out []string
	for _, k := range kernels() {
		out = append(out, k.name)
	}
	return out
}

func newEncoder(w Weights, kern namedKernel) (*Encoder, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	h, in := w.Hidden, w.Intermediate
	e := &Encoder{cfg: w.Config, word: w.Word, pos: w.Pos, typ: w.Type, embNorm: w.EmbNorm, kern: kern,
		hd: h / w.Heads}
	e.scale = float32(1 / math.Sqrt(float64(e.hd)))
	e.scratch.New = func() any { return new(attnScratch) }
	var scratch []float32 // packOwned's copy of one matrix
	for i, l := range w.Layers {
		qkv := &panels{}
		packInto(qkv, h, 3*h, func(r, c int) float32 {
			switch {
			case c < h:
				return l.Q.W[r*h+c]
			case c < 2*h:
				return l.K.W[r*h+c-h]
			}
			return l.V.W[r*h+c-2*h]
		})
		pk := pack
		if w.Owned {
			pk = func(m []float32, k, n int) *panels { return packOwned(m, k, n, &scratch) }
		}
		e.layers = append(e.layers, layer{
			qkv: qkv, qkvB: append(append(append([]float32(nil), l.Q.B...), l.K.B...), l.V.B...),
			o: pk(l.O.W, h, h), oB: l.O.B, attnNorm: l.AttnNorm,
			ff1: pk(l.FF1.W, h, in), ff1B: l.FF1.B, ff2: pk(l.FF2.W, in, h), ff2B: l.FF2.B, ffNorm: l.FFNorm,
		})
		if w.Owned {
			w.Layers[i] = Layer{}
		}
	}
	return e, nil
}

// packOwned packs the row-major k×n matrix m in m's own memory, through
// scratch (grown as needed), when the panels need no padding; else into
// new memory, as pack does.
func packOwned(m []float32, k, n int, scratch *[]float32) *panels {
	if n%nr != 0 {
		return pack(m, k, n)
	}
	tmp := grow(scratch, k*n)
	copy(tmp, m)
	p := &panels{k: k, n: n, data: m[:k*n]}
	for j := range n / nr {
		pj := p.panel(j)
		for r := range k {
			copy(pj[r*nr:(r+1)*nr], tmp[r*n+j*nr:])
		}
	}
	return p
}

// Config is the encoder's shape.
func (e *Encoder) Config() Config { return e.cfg }

// Kernel names the matrix-multiply micro-kernel in use: "avx512",
// "avx2", "neon" or "go".
func (e *Encoder) Kernel() string { return e.kern.name }

// Forward runs the encoder over sequences of token ids (special tokens
// included, token type 0) and returns last_hidden_state: sequence i's
// token vectors are hidden[off[i]*Hidden : off[i+1]*Hidden].
func (e *Encoder) Forward(seqs [][]int32) (hidden []float32, off []int, err error) {
	if len(seqs) == 0 {
		return nil, []int{0}, nil
	}
	off = make([]int, len(seqs)+1)
	for i, s := range seqs {
		if len(s) == 0 || len(s) > e.cfg.MaxPositions {
			return nil, nil, fmt.Errorf("%w: sequence %d has %d tokens, want 1 to %d", ErrInput, i, len(s), e.cfg.MaxPositions)
		}
		for _, id := range s {
			if id < 0 || int(id) >= e.cfg.Vocab {
				return nil, nil, fmt.Errorf("%w: sequence %d: token id %d is outside the vocabulary of %d", ErrInput, i, id, e.cfg.Vocab)
			}
		}
		off[i+1] = off[i] + len(s)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.forward(seqs, off), off, nil
}

// Embed runs Forward and pools each sequence into one L2-normalised
// vector, as sentence-transformers does: the mean of its token vectors
// (summed in float64), or the first token's.
func (e *Encoder) Embed(seqs [][]int32, how Pooling) ([][]float32, error) {
	hidden, off, err := e.Forward(seqs)
	if err != nil {
		return nil, err
	}
	h := e.cfg.Hidden
	out := make([][]float32, len(seqs))
	acc := make([]float64, h)
	for i := range seqs {
		v := make([]float32, h)
		if how == CLS {
			copy(v, hidden[off[i]*h:])
		} else {
			clear(acc)
			for t := off[i]; t < off[i+1]; t++ {
				for j, x := range hidden[t*h : (t+1)*h] {
					acc[j] += float64(x)
				}
			}
			n := float64(off[i+1] - off[i])
			for j := range v {
				v[j] = float32(acc[j] / n)
			}
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// forward computes the hidden states of the tokens laid end to end.
func (e *Encoder) forward(seqs [][]int32, off []int) []float32 {
	c := e.cfg
	h, in, n := c.Hidden, c.Intermediate, off[len(seqs)]
	x := make([]float32, n*h)
	for i, s := range seqs {
		for p, id := range s {
			row := x[(off[i]+p)*h : (off[i]+p+1)*h]
			w, ps, ty := e.word[int(id)*h:], e.pos[p*h:], e.typ[:h]
			for j := range row {
				row[j] = w[j] + ps[j] + ty[j]
			}
			layerNorm(row, e.embNorm, c.LayerNormEps)
		}
	}
	qkv := grow(&e.bufs.qkv, n*3*h)
	ctx := grow(&e.bufs.ctx, n*h)
	tmp := grow(&e.bufs.tmp, n*h)
	ff := grow(&e.bufs.ff, n*in)
	for _, l := range e.layers {
		fill(qkv, l.qkvB, n)
		matmulPar(e.kern.f, qkv, 3*h, x, h, n, l.qkv)
		clear(ctx)
		e.attention(qkv, ctx, off)
		fill(tmp, l.oB, n)
		matmulPar(e.kern.f, tmp, h, ctx, h, n, l.o)
		addNorm(x, tmp, l.attnNorm, n, c.LayerNormEps)
		fill(ff, l.ff1B, n)
		matmulPar(e.kern.f, ff, in, x, h, n, l.ff1)
		parallel((n+mc-1)/mc, func(t int) { e.kern.gelu(ff[t*mc*in : min(n, (t+1)*mc)*in]) })
		fill(tmp, l.ff2B, n)
		matmulPar(e.kern.f, tmp, h, ff, in, n, l.ff2)
		addNorm(x, tmp, l.ffNorm, n, c.LayerNormEps)
	}
	return x
}

// grow returns (*buf)[:n], reallocating *buf when it is shorter.
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// fill sets each of the n rows of dst to bias.
func fill(dst, bias []float32, n int) {
	for r := range n {
		copy(dst[r*len(bias):(r+1)*len(bias)], bias)
	}
}

// addNorm sets x = LayerNorm(x + y), row by row.
func addNorm(x, y []float32, nm Norm, n int, eps float64) {
	h := len(nm.G)
	parallel((n+mc-1)/mc, func(t int) {
		for r := t * mc; r < min(n, (t+1)*mc); r++ {
			row := x[r*h : (r+1)*h]
			for j, v := range y[r*h : (r+1)*h] {
				row[j] += v
			}
			layerNorm(row, nm, eps)
		}
	})
}

// layerNorm normalises v in place; mean and variance in float64.
func layerNorm(v []float32, nm Norm, eps float64) {
	var mean, vr float64
	for _, x := range v {
		mean += float64(x)
	}
	mean /= float64(len(v))
	for _, x := range v {
		d := float64(x) - mean
		vr += d * d
	}
	vr /= float64(len(v))
	inv := 1 / math.Sqrt(vr+eps)
	for i, x := range v {
		v[i] = float32((float64(x)-mean)*inv)*nm.G[i] + nm.B[i]
	}
}

// gelu applies GELU, x·Φ(x) with the exact (erf) normal CDF, in place.
func gelu(v []float32) {
	for i, x := range v {
		v[i] = 0.5 * x * (1 + erf32(x*(1/math.Sqrt2)))
	}
}

// attnScratch is one goroutine's attention buffers.
type attnScratch struct {
	scores []float32
	k, v   panels
}

// attention computes each sequence's multi-head self-attention from the
// projected q|k|v rows into ctx (zeroed), one task per sequence and head.
func (e *Encoder) attention(qkv, ctx []float32, off []int) {
	h, hd, heads := e.cfg.Hidden, e.hd, e.cfg.Heads
	seqs := len(off) - 1
	parallel(seqs*heads, func(t int) {
		s, head := t/heads, t%heads
		o, n := off[s], off[s+1]-off[s]
		sc := e.scratch.Get().(*attnScratch)
		defer e.scratch.Put(sc)
		q := qkv[o*3*h+head*hd:]
		k := qkv[o*3*h+h+head*hd:]
		v := qkv[o*3*h+2*h+head*hd:]
		// scores = Q·Kᵀ: B is Kᵀ, hd×n.
		packInto(&sc.k, hd, n, func(r, c int) float32 { return k[c*3*h+r] })
		ld := (n + nr - 1) / nr * nr
		if cap(sc.scores) < n*ld {
			sc.scores = make([]float32, n*ld)
		}
		scores := sc.scores[:n*ld]
		clear(scores)
		matmul(e.kern.f, scores, ld, q, 3*h, n, &sc.k)
		for r := range n {
			e.kern.softmax(scores[r*ld:(r+1)*ld], n, e.scale)
		}
		// ctx = P·V: B is V, n×hd.
		packInto(&sc.v, n, hd, func(r, c int) float32 { return v[r*3*h+c] })
		matmul(e.kern.f, ctx[o*h+head*hd:], h, scores, ld, n, &sc.v)
	})
}

// softmax sets v to softmax(v·scale); exp is expVec or its vector form.
func softmax(v []float32, scale float32, exp func([]float32)) {
	top := float32(math.Inf(-1))
	for _, x := range v {
		top = max(top, x)
	}
	for i, x := range v {
		v[i] = (x - top) * scale
	}
	exp(v)
	var sum float32
	for _, x := range v {
		sum += x
	}
	inv := 1 / sum
	for i := range v {
		v[i] *= inv
	}
}
