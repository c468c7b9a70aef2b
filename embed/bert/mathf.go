package bert

import "math"

func erf32(x float32) float32 { return float32(math.Erf(float64(x))) }

func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }
