package remote

import (
	"fmt"
	"math"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// toUnit checks that v has dim finite components and returns it as an
// L2-normalised float32 vector; a zero vector is returned as is.
func toUnit(v []float64, dim int) ([]float32, error) {
	if len(v) != dim {
		return nil, fmt.Errorf("%w: got %d values, want %d", embed.ErrDimension, len(v), dim)
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
			return nil, fmt.Errorf("%w: component %d is %g", ErrNonFinite, i, x)
		}
		ss += x * x
	}
	out := make([]float32, dim)
	if ss == 0 {
		return out, nil
	}
	norm := math.Sqrt(ss) // components ≤ MaxFloat32, so ss cannot overflow
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out, nil
}
