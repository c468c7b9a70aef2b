package bert

import (
	"errors"
	"fmt"
)

// ErrWeights marks weights New cannot run: a tensor missing or of the
// wrong size for the configuration.
var ErrWeights = errors.New("bert: weights do not match the configuration")

// Config is the shape of an encoder.
type Config struct {
	Vocab, Hidden, Layers, Heads, Intermediate, MaxPositions, TypeVocab int
	// LayerNormEps is the epsilon of every LayerNorm (BERT's is 1e-12).
	LayerNormEps float64
}

// Linear is a dense layer: y = x·W + B, W stored row-major [in][out].
type Linear struct {
	W, B []float32
}

// Norm is a LayerNorm's scale (G) and shift (B).
type Norm struct {
	G, B []float32
}

// Layer is one encoder layer's weights.
type Layer struct {
	Q, K, V, O Linear
	AttnNorm   Norm
	FF1, FF2   Linear
	FFNorm     Norm
}

// Weights are an encoder's configuration and tensors: the embedding
// tables are row-major [rows][Hidden].
type Weights struct {
	Config
	Word, Pos, Type []float32
	EmbNorm         Norm
	Layers          []Layer
	// Owned hands the layers' matrices to New: it packs them in their
	// own memory (the layout needs no more room when a matrix's width
	// is a multiple of 16, as every real model's is) and clears
	// Layers' entries, so a load holds one copy of the weights and
	// leaves next to no garbage. The caller must hold no other
	// reference to them.
	Owned bool
}

// check reports the first tensor whose size disagrees with the
// configuration.
func (w *Weights) check() error {
	c := w.Config
	if c.Hidden <= 0 || c.Heads <= 0 || c.Hidden%c.Heads != 0 || c.Layers <= 0 || c.Intermediate <= 0 ||
		c.Vocab <= 0 || c.MaxPositions <= 0 || c.TypeVocab <= 0 {
		return fmt.Errorf("%w: bad configuration %+v", ErrWeights, c)
	}
	if len(w.Layers) != c.Layers {
		return fmt.Errorf("%w: %d layers, the configuration says %d", ErrWeights, len(w.Layers), c.Layers)
	}
	h, in := c.Hidden, c.Intermediate
	type t struct {
		name string
		v    []float32
		n    int
	}
	ts := []t{{"word embeddings", w.Word, c.Vocab * h}, {"position embeddings", w.Pos, c.MaxPositions * h},
		{"token type embeddings", w.Type, c.TypeVocab * h}, {"embedding norm scale", w.EmbNorm.G, h}, {"embedding norm shift", w.EmbNorm.B, h}}
	for i, l := range w.Layers {
		p := fmt.Sprintf("layer %d ", i)
		ts = append(ts,
			t{p + "query weight", l.Q.W, h * h}, t{p + "query bias", l.Q.B, h},
			t{p + "key weight", l.K.W, h * h}, t{p + "key bias", l.K.B, h},
			t{p + "value weight", l.V.W, h * h}, t{p + "value bias", l.V.B, h},
			t{p + "attention output weight", l.O.W, h * h}, t{p + "attention output bias", l.O.B, h},
			t{p + "attention norm scale", l.AttnNorm.G, h}, t{p + "attention norm shift", l.AttnNorm.B, h},
			t{p + "intermediate weight", l.FF1.W, h * in}, t{p + "intermediate bias", l.FF1.B, in},
			t{p + "output weight", l.FF2.W, in * h}, t{p + "output bias", l.FF2.B, h},
			t{p + "output norm scale", l.FFNorm.G, h}, t{p + "output norm shift", l.FFNorm.B, h})
	}
	for _, x := range ts {
		if len(x.v) != x.n {
			return fmt.Errorf("%w: %s has %d values, want %d", ErrWeights, x.name, len(x.v), x.n)
		}
	}
	return nil
}
