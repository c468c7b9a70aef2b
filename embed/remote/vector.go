package remote

import (
	"fmt"
	"math"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// toUnit checks that v has dim finite components and returns it as an
// L2-normalised float32 vector (see embed.Normalize); a zero vector stays
// zero.
func toUnit(v []float64, dim int) ([]float32, error) {
	if len(v) != dim {
		return nil, fmt.Errorf("%w: got %d values, want %d", embed.ErrDimension, len(v), dim)
	}
	out := make([]float32, dim)
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
			return nil, fmt.Errorf("%w: component %d is %g", ErrNonFinite, i, x)
		}
		out[i] = float32(x)
	}
	embed.Normalize(out)
	return out, nil
}
