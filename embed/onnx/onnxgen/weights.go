package onnxgen

import "github.com/enquire-mcp/enquire-mcp/embed/bert"

// Weights are the model's tensors for the pure-Go encoder (package
// bert), sharing the model's slices. The cross-encoder head is not
// included.
func (m *Model) Weights() bert.Weights {
	w := bert.Weights{
		Config: bert.Config{Vocab: m.Vocab, Hidden: m.Hidden, Layers: m.Layers, Heads: m.Heads, Intermediate: m.Intermediate,
			MaxPositions: m.MaxPositions, TypeVocab: m.TypeVocab, LayerNormEps: m.eps()},
		Word: m.word, Pos: m.pos, Type: m.typ, EmbNorm: bert.Norm{G: m.lng, B: m.lnb},
	}
	for _, l := range m.layers {
		w.Layers = append(w.Layers, bert.Layer{
			Q: bert.Linear{W: l.wq, B: l.bq}, K: bert.Linear{W: l.wk, B: l.bk}, V: bert.Linear{W: l.wv, B: l.bv},
			O: bert.Linear{W: l.wo, B: l.bo}, AttnNorm: bert.Norm{G: l.ln1g, B: l.ln1b},
			FF1: bert.Linear{W: l.w1, B: l.b1}, FF2: bert.Linear{W: l.w2, B: l.b2}, FFNorm: bert.Norm{G: l.ln2g, B: l.ln2b},
		})
	}
	return w
}
