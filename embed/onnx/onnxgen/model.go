// Package onnxgen writes BERT-shaped ONNX models, and computes their
// outputs again in plain Go. New generates random weights: the ort tests
// and benchmarks check the machinery (the ONNX Runtime session, the
// tokenizer, padding, pooling, the cross-encoder head) against the second
// computation without a published model. FromCheckpoint takes the real
// weights of a Hugging Face BERT checkpoint (config.json and
// model.safetensors), which is how install-model turns a model shipped
// without an ONNX file into one ONNX Runtime runs.
//
// The graph is a BERT encoder as Hugging Face exports it: word, position
// and token-type embeddings, LayerNorm, then per layer multi-head
// self-attention with the additive attention-mask bias, and a GELU (erf)
// feed-forward block, each followed by a residual LayerNorm. An embedding
// model outputs last_hidden_state [batch, seq, hidden]; a cross-encoder
// adds BERT's pooler (tanh over the first token) and a one-logit
// classifier, output logits [batch, 1].
package onnxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Config is the shape of a generated model.
type Config struct {
	Vocab, Hidden, Layers, Heads, Intermediate, MaxPositions, TypeVocab int
	// CrossEncoder adds the pooler and the one-logit head.
	CrossEncoder bool
	// Seed makes the weights reproducible.
	Seed uint64
	// LayerNormEps is the epsilon of every LayerNorm; 0 means BERT's
	// 1e-12.
	LayerNormEps float64
}

// eps is the LayerNorm epsilon in use.
func (c Config) eps() float64 {
	if c.LayerNormEps > 0 {
		return c.LayerNormEps
	}
	return lnEps
}

// MiniLM is the shape of all-MiniLM-L6-v2 and ms-marco-MiniLM-L-6-v2:
// bert-base-uncased's vocabulary, 384 wide, 6 layers of 12 heads.
func MiniLM() Config {
	return Config{Vocab: 30522, Hidden: 384, Layers: 6, Heads: 12, Intermediate: 1536, MaxPositions: 512, TypeVocab: 2, Seed: 1}
}

// layer holds one encoder layer's weights, matrices as [in, out].
type layer struct {
	wq, bq, wk, bk, wv, bv, wo, bo []float32
	ln1g, ln1b                     []float32
	w1, b1, w2, b2                 []float32
	ln2g, ln2b                     []float32
}

// Model is a generated model: its weights and its ONNX encoding.
type Model struct {
	Config
	word, pos, typ []float32
	lng, lnb       []float32
	layers         []layer
	wp, bp, wc, bc []float32 // cross-encoder head
	// ONNX is the serialised ModelProto.
	ONNX []byte
}

// New generates a model of shape c.
func New(c Config) (*Model, error) {
	if c.Hidden%c.Heads != 0 || c.Hidden <= 0 || c.Layers <= 0 || c.Vocab <= 0 || c.MaxPositions <= 0 || c.TypeVocab <= 0 || c.Intermediate <= 0 {
		return nil, fmt.Errorf("onnxgen: bad config %+v", c)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x6f6e6e78))
	h, in := c.Hidden, c.Intermediate
	m := &Model{Config: c,
		word: normal(rng, c.Vocab*h, 0.5), pos: normal(rng, c.MaxPositions*h, 0.5), typ: normal(rng, c.TypeVocab*h, 0.5),
		lng: around(rng, h, 1), lnb: normal(rng, h, 0.1)}
	for range c.Layers {
		m.layers = append(m.layers, layer{
			wq: normal(rng, h*h, 0.1), bq: normal(rng, h, 0.1), wk: normal(rng, h*h, 0.1), bk: normal(rng, h, 0.1),
			wv: normal(rng, h*h, 0.1), bv: normal(rng, h, 0.1), wo: normal(rng, h*h, 0.1), bo: normal(rng, h, 0.1),
			ln1g: around(rng, h, 1), ln1b: normal(rng, h, 0.1),
			w1: normal(rng, h*in, 0.1), b1: normal(rng, in, 0.1), w2: normal(rng, in*h, 0.1), b2: normal(rng, h, 0.1),
			ln2g: around(rng, h, 1), ln2b: normal(rng, h, 0.1),
		})
	}
	if c.CrossEncoder {
		m.wp, m.bp, m.wc, m.bc = normal(rng, h*h, 0.1), normal(rng, h, 0.1), normal(rng, h, 0.3), normal(rng, 1, 0.1)
	}
	m.ONNX = m.encode()
	return m, nil
}

func normal(rng *rand.Rand, n int, std float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * std)
	}
	return v
}

func around(rng *rand.Rand, n int, center float64) []float32 {
	v := normal(rng, n, 0.1)
	for i := range v {
		v[i] += float32(center)
	}
	return v
}

// graph accumulates nodes and initializers.
type graph struct {
	eps   float64 // LayerNorm epsilon
	nodes []node
	inits []tensor
	n     int
}

// op adds a node with one output and returns the output's name.
func (g *graph) op(op string, inputs []string, attrs ...attr) string {
	g.n++
	out := fmt.Sprintf("%s_%d", op, g.n)
	g.nodes = append(g.nodes, node{op: op, inputs: inputs, outputs: []string{out}, attrs: attrs})
	return out
}

func (g *graph) weight(name string, data []float32, dims ...int64) string {
	g.inits = append(g.inits, tensor{name: name, dims: dims, f32: data})
	return name
}

func (g *graph) scalar(name string, v float32) string {
	return g.weight(name, []float32{v})
}

func (g *graph) ints(name string, v []int64, dims ...int64) string {
	g.inits = append(g.inits, tensor{name: name, dims: dims, i64: v})
	return name
}

func (g *graph) linear(x, name string, w, b []float32, in, out int) string {
	return g.op("Add", []string{g.op("MatMul", []string{x, g.weight(name+".w", w, int64(in), int64(out))}), g.weight(name+".b", b, int64(out))})
}

func (g *graph) layerNorm(x, name string, gamma, beta []float32) string {
	n := int64(len(gamma))
	return g.op("LayerNormalization", []string{x, g.weight(name+".g", gamma, n), g.weight(name+".b", beta, n)},
		intAttr("axis", -1), floatAttr("epsilon", float32(g.eps)))
}

// lnEps is BERT's default layer_norm_eps.
const lnEps = 1e-12

// encode writes the ONNX ModelProto (IR 8, opset 17).
func (m *Model) encode() []byte {
	g := &graph{eps: m.eps()}
	h, heads := int64(m.Hidden), int64(m.Heads)
	hd := h / heads
	x := g.op("Add", []string{
		g.op("Add", []string{
			g.op("Gather", []string{g.weight("word", m.word, int64(m.Vocab), h), "input_ids"}),
			g.op("Gather", []string{g.weight("pos", m.pos, int64(m.MaxPositions), h),
				g.op("Range", []string{g.ints("zero", []int64{0}), g.op("Gather", []string{g.op("Shape", []string{"input_ids"}), g.ints("one", []int64{1})}), g.ints("step", []int64{1})})}),
		}),
		g.op("Gather", []string{g.weight("type", m.typ, int64(m.TypeVocab), h), "token_type_ids"}),
	})
	x = g.layerNorm(x, "emb.ln", m.lng, m.lnb)
	bias := g.op("Mul", []string{g.op("Sub", []string{g.scalar("onef", 1), g.op("Cast", []string{"attention_mask"}, intAttr("to", dtFloat))}), g.scalar("neg", maskBias)})
	bias = g.op("Unsqueeze", []string{bias, g.ints("axes12", []int64{1, 2}, 2)})
	split := g.ints("split_heads", []int64{0, 0, heads, hd}, 4)
	merge := g.ints("merge_heads", []int64{0, 0, h}, 3)
	for i, l := range m.layers {
		p := fmt.Sprintf("l%d.", i)
		heads := func(name string, w, b []float32, perm ...int64) string {
			return g.op("Transpose", []string{g.op("Reshape", []string{g.linear(x, p+name, w, b, m.Hidden, m.Hidden), split})}, intsAttr("perm", perm...))
		}
		q, k, v := heads("q", l.wq, l.bq, 0, 2, 1, 3), heads("k", l.wk, l.bk, 0, 2, 3, 1), heads("v", l.wv, l.bv, 0, 2, 1, 3)
		s := g.op("Add", []string{g.op("Mul", []string{g.op("MatMul", []string{q, k}), g.scalar(p+"scale", float32(1/math.Sqrt(float64(hd))))}), bias})
		ctx := g.op("MatMul", []string{g.op("Softmax", []string{s}, intAttr("axis", -1)), v})
		ctx = g.op("Reshape", []string{g.op("Transpose", []string{ctx}, intsAttr("perm", 0, 2, 1, 3)), merge})
		x = g.layerNorm(g.op("Add", []string{x, g.linear(ctx, p+"o", l.wo, l.bo, m.Hidden, m.Hidden)}), p+"ln1", l.ln1g, l.ln1b)
		f := g.linear(x, p+"ff1", l.w1, l.b1, m.Hidden, m.Intermediate)
		f = g.op("Mul", []string{g.op("Mul", []string{f, g.scalar(p+"half", 0.5)}),
			g.op("Add", []string{g.op("Erf", []string{g.op("Div", []string{f, g.scalar(p+"sqrt2", math.Sqrt2)})}), g.scalar(p+"one", 1)})})
		x = g.layerNorm(g.op("Add", []string{x, g.linear(f, p+"ff2", l.w2, l.b2, m.Intermediate, m.Hidden)}), p+"ln2", l.ln2g, l.ln2b)
	}
	out, outDims := "last_hidden_state", []string{"batch", "sequence", fmt.Sprint(m.Hidden)}
	if m.CrossEncoder {
		cls := g.op("Gather", []string{x, g.ints("first", []int64{0})}, intAttr("axis", 1))
		pooled := g.op("Tanh", []string{g.linear(cls, "pooler", m.wp, m.bp, m.Hidden, m.Hidden)})
		x = g.linear(pooled, "classifier", m.wc, m.bc, m.Hidden, 1)
		out, outDims = "logits", []string{"batch", "1"}
	}
	g.nodes = append(g.nodes, node{op: "Identity", inputs: []string{x}, outputs: []string{out}})

	var gp pb
	for i, n := range g.nodes {
		gp = gp.bytes(1, n.encode(fmt.Sprintf("n%d", i)))
	}
	gp = gp.str(2, "onnxgen")
	for _, t := range g.inits {
		gp = gp.bytes(5, t.encode())
	}
	for _, in := range []string{"input_ids", "attention_mask", "token_type_ids"} {
		gp = gp.bytes(11, valueInfo(in, dtInt64, "batch", "sequence"))
	}
	gp = gp.bytes(12, valueInfo(out, dtFloat, outDims...))
	return pb(nil).int(1, 8).str(2, "enquire-mcp onnxgen").bytes(7, gp).bytes(8, pb(nil).str(1, "").int(2, 17))
}

// maskBias is added to the attention scores of padding positions.
const maskBias = -10000
