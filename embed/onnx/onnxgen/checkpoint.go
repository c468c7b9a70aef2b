package onnxgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
)

// ErrCheckpoint marks a checkpoint FromCheckpoint cannot convert: not a
// BERT encoder it knows, a tensor missing, or shapes that disagree with
// config.json.
var ErrCheckpoint = errors.New("cannot convert checkpoint")

// Checkpoint file names, as Hugging Face writes them.
const (
	ConfigFile  = "config.json"
	WeightsFile = "model.safetensors"
)

// maxConfig caps config.json.
const maxConfig = 1 << 20

// bertConfig is the part of config.json FromCheckpoint reads.
type bertConfig struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`
	HiddenAct     string   `json:"hidden_act"`
	PositionType  string   `json:"position_embedding_type"`
	IsDecoder     bool     `json:"is_decoder"`
	Hidden        int      `json:"hidden_size"`
	Layers        int      `json:"num_hidden_layers"`
	Heads         int      `json:"num_attention_heads"`
	Intermediate  int      `json:"intermediate_size"`
	Vocab         int      `json:"vocab_size"`
	MaxPositions  int      `json:"max_position_embeddings"`
	TypeVocab     int      `json:"type_vocab_size"`
	LayerNormEps  *float64 `json:"layer_norm_eps"`
}

// ReadConfig reads a BERT config.json and refuses any other architecture:
// model_type must be "bert", hidden_act "gelu" (the erf form the graph
// computes), position embeddings absolute, and the sizes present and
// consistent.
func ReadConfig(path string) (Config, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("onnxgen: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxConfig+1))
	if err != nil {
		return Config{}, fmt.Errorf("onnxgen: read %s: %w", path, err)
	}
	if len(data) > maxConfig {
		return Config{}, fmt.Errorf("onnxgen: %s: %w: over %d bytes", path, ErrCheckpoint, maxConfig)
	}
	var c bertConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("onnxgen: %s: %w: %v", path, ErrCheckpoint, err)
	}
	bad := func(format string, a ...any) (Config, error) {
		return Config{}, fmt.Errorf("onnxgen: %s: %w: %s", path, ErrCheckpoint, fmt.Sprintf(format, a...))
	}
	switch {
	case c.ModelType != "bert":
		return bad("model_type is %q; only \"bert\" can be converted", c.ModelType)
	case c.HiddenAct != "gelu":
		return bad("hidden_act is %q; only \"gelu\" can be converted", c.HiddenAct)
	case c.PositionType != "" && c.PositionType != "absolute":
		return bad("position_embedding_type is %q; only \"absolute\" can be converted", c.PositionType)
	case c.IsDecoder:
		return bad("is_decoder is true; only encoders can be converted")
	}
	for _, a := range c.Architectures {
		if a != "BertModel" {
			return bad("architecture %q; only BertModel (a sentence-embedding encoder) can be converted", a)
		}
	}
	for _, f := range []struct {
		key string
		v   int
	}{{"hidden_size", c.Hidden}, {"num_hidden_layers", c.Layers}, {"num_attention_heads", c.Heads}, {"intermediate_size", c.Intermediate}, {"vocab_size", c.Vocab}} {
		if f.v <= 0 {
			return bad("%s is missing or not positive", f.key)
		}
	}
	if c.Hidden%c.Heads != 0 {
		return bad("hidden_size %d is not a multiple of num_attention_heads %d", c.Hidden, c.Heads)
	}
	cfg := Config{Vocab: c.Vocab, Hidden: c.Hidden, Layers: c.Layers, Heads: c.Heads, Intermediate: c.Intermediate,
		MaxPositions: c.MaxPositions, TypeVocab: c.TypeVocab}
	if c.LayerNormEps != nil {
		if !(*c.LayerNormEps > 0 && *c.LayerNormEps < 1) {
			return bad("layer_norm_eps %v is not in (0, 1)", *c.LayerNormEps)
		}
		cfg.LayerNormEps = *c.LayerNormEps
	}
	return cfg, nil
}

// layerRE matches the encoder layer number of a tensor name.
var layerRE = regexp.MustCompile(`^encoder\.layer\.(\d+)\.`)

// FromCheckpoint builds the embedding model of a Hugging Face BERT
// checkpoint folder (config.json and model.safetensors, as
// sentence-transformers saves a BertModel): its real weights, and its
// ONNX graph. PyTorch stores Linear weights [out, in]; they are
// transposed to the graph's [in, out]. The maximum position and token
// type counts come from the tensors (config.json, where it gives them,
// must agree); layer_norm_eps from config.json. A missing tensor, a shape
// that disagrees with config.json, an encoder layer config.json does not
// count, or another architecture is an error wrapping ErrCheckpoint that
// names it.
func FromCheckpoint(ctx context.Context, dir string) (*Model, error) {
	m, err := ReadCheckpoint(ctx, dir)
	if err != nil {
		return nil, err
	}
	m.ONNX = m.encode()
	return m, nil
}

// ReadCheckpoint is FromCheckpoint without the ONNX graph: the weights
// only, as the pure-Go encoder needs them.
func ReadCheckpoint(ctx context.Context, dir string) (*Model, error) {
	c, err := ReadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, WeightsFile)
	f, err := safetensors.Open(path)
	if err != nil {
		return nil, fmt.Errorf("onnxgen: %w", err)
	}
	defer f.Close()
	prefix := ""
	if _, ok := f.Tensors["bert.embeddings.word_embeddings.weight"]; ok {
		prefix = "bert."
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("onnxgen: %s: %w: %s", path, ErrCheckpoint, fmt.Sprintf(format, a...))
	}
	// The position and token type tables size the model; config.json's
	// values, when present, must agree.
	for _, t := range []struct {
		name, key string
		dst       *int
	}{
		{"embeddings.position_embeddings.weight", "max_position_embeddings", &c.MaxPositions},
		{"embeddings.token_type_embeddings.weight", "type_vocab_size", &c.TypeVocab},
	} {
		ti, ok := f.Tensors[prefix+t.name]
		if !ok {
			return nil, bad("no tensor %q", prefix+t.name)
		}
		if len(ti.Shape) != 2 || ti.Shape[1] != int64(c.Hidden) || ti.Shape[0] <= 0 {
			return nil, bad("tensor %q has shape %v, want [%s, %d] (hidden_size)", ti.Name, ti.Shape, t.key, c.Hidden)
		}
		if *t.dst != 0 && int64(*t.dst) != ti.Shape[0] {
			return nil, bad("tensor %q has %d rows but config.json's %s is %d", ti.Name, ti.Shape[0], t.key, *t.dst)
		}
		*t.dst = int(ti.Shape[0])
	}
	for name := range f.Tensors {
		if m := layerRE.FindStringSubmatch(strings.TrimPrefix(name, prefix)); m != nil {
			if n, err := strconv.Atoi(m[1]); err != nil || n >= c.Layers {
				return nil, bad("tensor %q is beyond config.json's num_hidden_layers %d", name, c.Layers)
			}
		}
	}
	m := &Model{Config: c}
	h, in := c.Hidden, c.Intermediate
	// read loads a tensor of the given shape (as PyTorch stores it).
	read := func(name string, shape ...int) ([]float32, error) {
		name = prefix + name
		ti, ok := f.Tensors[name]
		if !ok {
			return nil, bad("no tensor %q", name)
		}
		want := make([]int64, len(shape))
		for i, d := range shape {
			want[i] = int64(d)
		}
		if !slices.Equal(ti.Shape, want) {
			return nil, bad("tensor %q has shape %v, config.json implies %v", name, ti.Shape, want)
		}
		v, err := f.Floats(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("onnxgen: %w", err)
		}
		return v, nil
	}
	// linear loads a Linear layer's weight [out, in], transposed, and bias.
	linear := func(name string, inDim, outDim int) (w, b []float32, err error) {
		if w, err = read(name+".weight", outDim, inDim); err != nil {
			return nil, nil, err
		}
		if b, err = read(name+".bias", outDim); err != nil {
			return nil, nil, err
		}
		return transpose(w, outDim, inDim), b, nil
	}
	norm := func(name string) (g, b []float32, err error) {
		if g, err = read(name+".weight", h); err != nil {
			return nil, nil, err
		}
		b, err = read(name+".bias", h)
		return g, b, err
	}
	if m.word, err = read("embeddings.word_embeddings.weight", c.Vocab, h); err != nil {
		return nil, err
	}
	if m.pos, err = read("embeddings.position_embeddings.weight", c.MaxPositions, h); err != nil {
		return nil, err
	}
	if m.typ, err = read("embeddings.token_type_embeddings.weight", c.TypeVocab, h); err != nil {
		return nil, err
	}
	if m.lng, m.lnb, err = norm("embeddings.LayerNorm"); err != nil {
		return nil, err
	}
	for i := range c.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		var l layer
		steps := []func() error{
			func() (err error) { l.wq, l.bq, err = linear(p+"attention.self.query", h, h); return },
			func() (err error) { l.wk, l.bk, err = linear(p+"attention.self.key", h, h); return },
			func() (err error) { l.wv, l.bv, err = linear(p+"attention.self.value", h, h); return },
			func() (err error) { l.wo, l.bo, err = linear(p+"attention.output.dense", h, h); return },
			func() (err error) { l.ln1g, l.ln1b, err = norm(p + "attention.output.LayerNorm"); return },
			func() (err error) { l.w1, l.b1, err = linear(p+"intermediate.dense", h, in); return },
			func() (err error) { l.w2, l.b2, err = linear(p+"output.dense", in, h); return },
			func() (err error) { l.ln2g, l.ln2b, err = norm(p + "output.LayerNorm"); return },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return nil, err
			}
		}
		m.layers = append(m.layers, l)
	}
	return m, nil
}

// transpose turns a rows×cols row-major matrix into cols×rows.
func transpose(w []float32, rows, cols int) []float32 {
	out := make([]float32, len(w))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = w[r*cols+c]
		}
	}
	return out
}

// WriteCheckpoint writes the model as a Hugging Face BertModel
// checkpoint, the input of FromCheckpoint: config.json and
// model.safetensors (F32, PyTorch's names and [out, in] Linear weights).
// An embedding model only: a cross-encoder's head is not written.
func (m *Model) WriteCheckpoint(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg, err := json.MarshalIndent(map[string]any{
		"architectures": []string{"BertModel"}, "model_type": "bert", "hidden_act": "gelu", "position_embedding_type": "absolute",
		"hidden_size": m.Hidden, "num_hidden_layers": m.Layers, "num_attention_heads": m.Heads,
		"intermediate_size": m.Intermediate, "max_position_embeddings": m.MaxPositions, "type_vocab_size": m.TypeVocab,
		"vocab_size": m.Vocab, "pad_token_id": 0, "layer_norm_eps": m.eps(),
	}, "", "  ")
	if err != nil {
		return err
	}
	h, in := m.Hidden, m.Intermediate
	var ts []safetensors.Tensor
	add := func(name string, v []float32, shape ...int64) {
		ts = append(ts, safetensors.Tensor{Name: name, DType: "F32", Shape: shape, Data: safetensors.F32Bytes(v)})
	}
	// linear stores an [in, out] weight as PyTorch's [out, in].
	linear := func(name string, w, b []float32, inDim, outDim int) {
		add(name+".weight", transpose(w, inDim, outDim), int64(outDim), int64(inDim))
		add(name+".bias", b, int64(outDim))
	}
	norm := func(name string, g, b []float32) {
		add(name+".weight", g, int64(h))
		add(name+".bias", b, int64(h))
	}
	add("embeddings.word_embeddings.weight", m.word, int64(m.Vocab), int64(h))
	add("embeddings.position_embeddings.weight", m.pos, int64(m.MaxPositions), int64(h))
	add("embeddings.token_type_embeddings.weight", m.typ, int64(m.TypeVocab), int64(h))
	norm("embeddings.LayerNorm", m.lng, m.lnb)
	for i, l := range m.layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		linear(p+"attention.self.query", l.wq, l.bq, h, h)
		linear(p+"attention.self.key", l.wk, l.bk, h, h)
		linear(p+"attention.self.value", l.wv, l.bv, h, h)
		linear(p+"attention.output.dense", l.wo, l.bo, h, h)
		norm(p+"attention.output.LayerNorm", l.ln1g, l.ln1b)
		linear(p+"intermediate.dense", l.w1, l.b1, h, in)
		linear(p+"output.dense", l.w2, l.b2, in, h)
		norm(p+"output.LayerNorm", l.ln2g, l.ln2b)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), append(cfg, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, WeightsFile), safetensors.Encode(ts, map[string]string{"format": "pt"}), 0o644)
}
