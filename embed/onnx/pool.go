package onnx

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Pooling is how token vectors become one sentence vector.
type Pooling int

// Poolings, as sentence-transformers' 1_Pooling/config.json names them.
const (
	// Mean averages the vectors of the real (unmasked) tokens.
	Mean Pooling = iota
	// CLS takes the first token's vector.
	CLS
)

func (p Pooling) String() string {
	if p == CLS {
		return "cls"
	}
	return "mean"
}

// pool turns last_hidden_state [rows][cols][dim] into one L2-normalised
// vector per row. Mean pooling sums in float64 over the tokens whose mask
// is 1.
func pool(hidden []float32, b *batch, dim int, how Pooling) ([][]float32, error) {
	if len(hidden) != b.rows*b.cols*dim {
		return nil, fmt.Errorf("%w: model output has %d values, want %d×%d×%d", embed.ErrDimension, len(hidden), b.rows, b.cols, dim)
	}
	out := make([][]float32, b.rows)
	acc := make([]float64, dim)
	for r := range b.rows {
		v := make([]float32, dim)
		base := r * b.cols * dim
		if how == CLS {
			copy(v, hidden[base:base+dim])
		} else {
			clear(acc)
			n := 0
			for c := range b.cols {
				if b.mask[r*b.cols+c] == 0 {
					continue
				}
				n++
				for i, x := range hidden[base+c*dim : base+(c+1)*dim] {
					acc[i] += float64(x)
				}
			}
			for i := range v {
				v[i] = float32(acc[i] / float64(max(n, 1)))
			}
		}
		embed.Normalize(v)
		out[r] = v
	}
	return out, nil
}
