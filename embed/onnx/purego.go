package onnx

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/embed"
	gobert "github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// PureGo is an embedding model run by the pure-Go encoder (package
// bert): no cgo, no shared library. It implements TextEmbedder and is
// safe for concurrent use.
type PureGo struct {
	f         *folder
	enc       *gobert.Encoder
	pooling   gobert.Pooling
	batch     int
	ws        sync.Pool // *tokenizer.Workspace
	truncated atomic.Int64
}

// OpenPureGo opens the embedding model in dir (see readFolder) with the
// pure-Go encoder. Its weights come from model.safetensors when the
// folder has it, else from the initializers of the ONNX graph
// install-model wrote; a BERT checkpoint is all it runs (model_type
// "bert": all-MiniLM-L6-v2, bge-small-en-v1.5). Files that do not match
// each other (config.json, the tensors, the tokenizer's vocabulary) are
// an error naming the mismatch. Options.BatchSize bounds the texts per
// run (default 8) and Options.Kernel picks the kernel set; the other
// options are ONNX Runtime's.
func OpenPureGo(ctx context.Context, dir string, opts Options) (*PureGo, error) {
	opts = opts.withDefaults()
	f, err := readFolder(ctx, dir)
	if err != nil {
		return nil, err
	}
	if f.known && f.spec.Kind != Embedding {
		return nil, fmt.Errorf("onnx: %s is a %s; the pure-Go encoder runs embedding models", f.name, f.spec.Kind)
	}
	var m *onnxgen.Model
	if f.checkpoint {
		m, err = onnxgen.ReadCheckpoint(ctx, dir)
	} else {
		m, err = onnxgen.FromONNX(ctx, dir, f.modelPath)
	}
	if err != nil {
		return nil, fmt.Errorf("onnx: pure-Go encoder: %w", err)
	}
	if n := int(f.tok.MaxID()) + 1; n > m.Vocab {
		return nil, fmt.Errorf("onnx: %s: tokenizer.json has ids up to %d but the model's vocabulary has %d rows: the tokenizer is not this model's", dir, n-1, m.Vocab)
	}
	if f.known && f.spec.Dim != m.Hidden {
		return nil, fmt.Errorf("onnx: %s: %s has %d dimensions but the weights are %d wide: not this model", dir, f.name, f.spec.Dim, m.Hidden)
	}
	// The model's positions bound the window too.
	f.spec.MaxLength = min(f.spec.MaxLength, m.MaxPositions)
	w := m.Weights()
	w.Owned = true // m's matrices become the encoder's panels: m is not used again
	kernel := opts.Kernel
	if kernel == "" {
		kernel = os.Getenv(KernelEnv)
	}
	enc, err := gobert.NewWithKernel(w, kernel)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", dir, err)
	}
	p := &PureGo{f: f, enc: enc, batch: opts.BatchSize}
	if f.spec.Pooling == CLS {
		p.pooling = gobert.CLS
	}
	p.ws.New = func() any { return new(tokenizer.Workspace) }
	return p, nil
}

// ID is "transformer:<name>@<digest prefix>/<dim>", as ONNX Runtime's
// (see folder.modelID).
func (p *PureGo) ID() string { return p.f.modelID(p.Dim()) }

// Dim is the vector dimension.
func (p *PureGo) Dim() int { return p.enc.Config().Hidden }

// MaxLength is the maximum sequence length, special tokens included.
func (p *PureGo) MaxLength() int { return p.f.spec.MaxLength }

// Truncated counts the texts cut to MaxLength so far.
func (p *PureGo) Truncated() int64 { return p.truncated.Load() }

// Kernel names the matrix-multiply kernel in use.
func (p *PureGo) Kernel() string { return p.enc.Kernel() }

// EnglishOnly reports whether the model is known to be trained on English
// alone (embed.EnglishOnly).
func (p *PureGo) EnglishOnly() bool { return p.f.spec.English }

// Close releases nothing: the weights are ordinary memory.
func (p *PureGo) Close() error { return nil }

// Embed returns one L2-normalised vector per text, pooled as the model's
// configuration says; queries and documents get the model's prefixes. A
// text past the window is cut to MaxLength tokens and counted in
// Truncated. Texts run in batches of similar lengths (see spans); the
// vectors come back in the order of texts.
func (p *PureGo) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	seqs := make([]sequence, len(texts))
	ws := p.ws.Get().(*tokenizer.Workspace)
	for i, t := range texts {
		var cut bool
		seqs[i], cut = single(p.f.tok.Encode(ws, p.f.prefix(kind)+t), p.f.special, p.f.spec.MaxLength)
		if cut {
			p.truncated.Add(1)
		}
	}
	p.ws.Put(ws)
	order := byLength(seqs)
	out := make([][]float32, len(texts))
	ls := make([]int, len(order))
	for i, k := range order {
		ls[i] = len(seqs[k].ids)
	}
	for _, sp := range spans(ls, p.batch) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ids := make([][]int32, 0, sp[1]-sp[0])
		for _, k := range order[sp[0]:sp[1]] {
			s := make([]int32, len(seqs[k].ids))
			for j, id := range seqs[k].ids {
				s[j] = int32(id)
			}
			ids = append(ids, s)
		}
		vs, err := p.enc.Embed(ids, p.pooling)
		if err != nil {
			return nil, fmt.Errorf("onnx: %s: %w", p.f.name, err)
		}
		for i, v := range vs {
			out[order[sp[0]+i]] = v
		}
	}
	return out, nil
}
