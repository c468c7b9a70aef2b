// Package static embeds text with a static word-vector model: every token
// of the vocabulary has one fixed vector (a row of a [Table]), and a text's
// vector is the weighted average of its tokens' rows, optionally minus its
// projection on a common component (SIF, Arora et al. 2017), L2-normalised.
//
// Rows are stored as int8 with one float32 scale per row and dequantised
// on the fly while summing, so a 50,000-word, 100-dimension table takes
// 5 MB. The engine knows nothing about words: a tokenizer maps text to row
// numbers. Package minilm builds the built-in model on it; package
// model2vec has its own engine (float tables, mean pooling).
//
// [Encode] and [Decode] read and write tables together with their
// vocabulary in a small versioned binary format.
package static

import (
	"errors"
	"fmt"
	"math"
)

// Table holds a quantised static embedding table: row r's vector is
// Vectors[r*Dim:(r+1)*Dim], each int8 multiplied by Scales[r].
type Table struct {
	// Dim is the vector dimension.
	Dim int
	// Rows is the number of rows (tokens).
	Rows int
	// Vectors holds Rows*Dim quantised values, row after row.
	Vectors []int8
	// Scales holds one dequantisation factor per row: v = int8 * scale.
	Scales []float32
	// Weights holds one weight per row (for example the SIF weight
	// a/(a+p(w))); nil means every row weighs 1.
	Weights []float32
}

// ErrInvalid is wrapped by every error about a malformed table or file.
var ErrInvalid = errors.New("static: invalid table")

// Validate checks that the slices have the sizes Dim and Rows promise and
// that scales and weights are finite and non-negative.
func (t *Table) Validate() error {
	switch {
	case t == nil:
		return fmt.Errorf("%w: nil table", ErrInvalid)
	case t.Dim <= 0 || t.Rows < 0:
		return fmt.Errorf("%w: dim %d, rows %d", ErrInvalid, t.Dim, t.Rows)
	case len(t.Vectors) != t.Rows*t.Dim:
		return fmt.Errorf("%w: %d vector values for %d rows of dim %d", ErrInvalid, len(t.Vectors), t.Rows, t.Dim)
	case len(t.Scales) != t.Rows:
		return fmt.Errorf("%w: %d scales for %d rows", ErrInvalid, len(t.Scales), t.Rows)
	case t.Weights != nil && len(t.Weights) != t.Rows:
		return fmt.Errorf("%w: %d weights for %d rows", ErrInvalid, len(t.Weights), t.Rows)
	}
	for r, s := range t.Scales {
		if !finiteNonNeg(s) {
			return fmt.Errorf("%w: row %d has scale %v", ErrInvalid, r, s)
		}
	}
	for r, w := range t.Weights {
		if !finiteNonNeg(w) {
			return fmt.Errorf("%w: row %d has weight %v", ErrInvalid, r, w)
		}
	}
	return nil
}

// Quantize writes v into dst (len(dst) == len(v)) as symmetric int8,
// round to nearest, and returns the scale that maps dst back: v[i] ≈
// float32(dst[i]) * scale. An all-zero v gets scale 0.
func Quantize(dst []int8, v []float32) (scale float32) {
	var maxAbs float64
	for _, x := range v {
		maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
	}
	if maxAbs == 0 || math.IsNaN(maxAbs) {
		clear(dst[:len(v)])
		return 0
	}
	scale = float32(maxAbs / 127)
	for i, x := range v {
		q := math.Round(float64(x) / float64(scale))
		dst[i] = int8(max(-127, min(127, q)))
	}
	return scale
}

func finiteNonNeg(x float32) bool {
	return x >= 0 && !math.IsInf(float64(x), 1)
}
