package static

import (
	"context"
	"fmt"
	"sync"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Tokenizer maps text to table rows: it calls emit once per token the
// model knows, in any order (a sum does not care). Rows outside the table
// are ignored. A Tokenizer must be safe for concurrent use and should not
// allocate per token: it runs on every chunk of a vault.
type Tokenizer func(text string, emit func(row int))

// Options tune a [Model].
type Options struct {
	// RemoveComponent, when set, is a direction (len Dim, normalised by
	// New) whose projection is removed from every text vector before the
	// final normalisation: SIF's common-component removal. Nil leaves
	// vectors as they are.
	RemoveComponent []float32
}

// Model embeds texts with a static table. It implements [embed.Embedder]
// and is safe for concurrent use.
type Model struct {
	id       string
	dim      int
	rows     int
	vectors  []int8
	rowScale []float32 // Scales[r] * Weights[r]: one multiply per value
	comp     []float32 // unit vector, or nil
	tokenize Tokenizer
	pool     sync.Pool // *scratch
}

var _ embed.Embedder = (*Model)(nil)

// scratch is the per-goroutine state of one Embed call: the destination
// being summed into, and emit bound to it once, so that tokenizing and
// summing allocate nothing.
type scratch struct {
	m    *Model
	acc  []float32
	n    int
	emit func(row int)
}

// New returns a model named id over t. The model shares t's slices, which
// must not change afterwards.
func New(id string, t *Table, tokenize Tokenizer, opts Options) (*Model, error) {
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("static: model %q: %w", id, err)
	}
	if id == "" || tokenize == nil {
		return nil, fmt.Errorf("%w: model needs an id and a tokenizer", ErrInvalid)
	}
	m := &Model{
		id: id, dim: t.Dim, rows: t.Rows, vectors: t.Vectors,
		rowScale: make([]float32, t.Rows), tokenize: tokenize,
	}
	for r, s := range t.Scales {
		if t.Weights != nil {
			s *= t.Weights[r]
		}
		m.rowScale[r] = s
	}
	if c := opts.RemoveComponent; c != nil {
		if len(c) != t.Dim {
			return nil, fmt.Errorf("static: model %q: component of dim %d for table of dim %d: %w", id, len(c), t.Dim, embed.ErrDimension)
		}
		m.comp = make([]float32, t.Dim)
		copy(m.comp, c)
		if !embed.Normalize(m.comp) {
			return nil, fmt.Errorf("%w: model %q: zero or non-finite component", ErrInvalid, id)
		}
	}
	m.pool.New = func() any {
		s := &scratch{m: m}
		s.emit = s.add
		return s
	}
	return m, nil
}

// ID returns the model identifier given to New.
func (m *Model) ID() string { return m.id }

// Dim returns the vector dimension.
func (m *Model) Dim() int { return m.dim }

// Embed returns one L2-normalised vector per text; a text without any
// known token gets a zero vector. Static models embed queries and
// documents alike, so kind is ignored. The vectors share one backing
// array. Cancelling ctx stops between texts.
func (m *Model) Embed(ctx context.Context, texts []string, _ embed.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*m.dim)
	s := m.pool.Get().(*scratch)
	defer m.pool.Put(s)
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("static: embed %s: text %d of %d: %w", m.id, i, len(texts), err)
		}
		v := backing[i*m.dim : (i+1)*m.dim : (i+1)*m.dim]
		m.embedOne(s, text, v)
		out[i] = v
	}
	return out, nil
}

// embedOne sums the weighted rows of text's tokens into v (all zeros on
// entry), removes the common component and normalises.
func (m *Model) embedOne(s *scratch, text string, v []float32) {
	s.acc, s.n = v, 0
	m.tokenize(text, s.emit)
	s.acc = nil
	if s.n == 0 {
		return
	}
	if m.comp != nil {
		var dot float32
		for i, c := range m.comp {
			dot += v[i] * c
		}
		for i, c := range m.comp {
			v[i] -= dot * c
		}
	}
	embed.Normalize(v) // zeroes v if the rows cancelled out
}

// add accumulates one row, dequantised and weighted.
func (s *scratch) add(row int) {
	m := s.m
	if uint(row) >= uint(m.rows) {
		return
	}
	w := m.rowScale[row]
	src := m.vectors[row*m.dim : (row+1)*m.dim]
	dst := s.acc[:len(src)]
	for len(src) >= 8 { // sliced in blocks of 8: no bounds checks inside
		d, q := dst[:8:8], src[:8:8]
		d[0] += float32(q[0]) * w
		d[1] += float32(q[1]) * w
		d[2] += float32(q[2]) * w
		d[3] += float32(q[3]) * w
		d[4] += float32(q[4]) * w
		d[5] += float32(q[5]) * w
		d[6] += float32(q[6]) * w
		d[7] += float32(q[7]) * w
		dst, src = dst[8:], src[8:]
	}
	for i, q := range src {
		dst[i] += float32(q) * w
	}
	s.n++
}
