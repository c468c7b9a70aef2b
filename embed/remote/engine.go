package remote

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// probeText is what Probe embeds.
const probeText = "enquire-mcp dimension probe"

// backend is one provider's wire protocol.
type backend interface {
	// embed returns one raw vector per text, in order.
	embed(ctx context.Context, texts []string) ([][]float64, error)
}

// engine is what both providers share: prefixes, truncation, batching,
// dimension learning, validation and normalisation.
type engine struct {
	name     string // "ollama" or "openai", for errors
	cfg      Config // with defaults
	prefixes Prefixes
	variant  string // ID suffix for non-default settings, see variant
	red      redactor
	dim      atomic.Int64
	be       backend
}

func newEngine(name string, cfg Config, be backend) *engine {
	e := &engine{name: name, cfg: cfg, prefixes: prefixesFor(cfg), red: redactor{cfg.APIKey}, be: be}
	e.variant = variant(cfg, e.prefixes)
	e.dim.Store(int64(cfg.Dim))
	return e
}

// validate checks what every provider needs from a Config.
func validate(name string, cfg Config) error {
	switch {
	case strings.TrimSpace(cfg.Model) == "":
		return fmt.Errorf("remote: %s: Model is required", name)
	case cfg.Dim < 0:
		return fmt.Errorf("remote: %s: Dim %d is negative", name, cfg.Dim)
	}
	return nil
}

// id is "<provider>:<host>/<model>[@<variant>]/<dim>".
func (e *engine) id(host string) string {
	return fmt.Sprintf("%s:%s/%s%s/%d", e.name, host, e.cfg.Model, e.variant, e.getDim())
}

// getDim is the expected or learned dimension, 0 while unknown.
func (e *engine) getDim() int { return int(e.dim.Load()) }

// fail adds the provider and model to err and removes the API key.
func (e *engine) fail(err error) error {
	return e.red.err(fmt.Errorf("%s %s: %w", e.name, e.cfg.Model, err))
}

// embed implements embed.Embedder.Embed.
func (e *engine) embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, e.fail(err)
	}
	prefix := e.prefixes.Document
	if kind == embed.Query {
		prefix = e.prefixes.Query
	}
	out := make([][]float32, len(texts))
	var pos []int // out index of each input
	var inputs []string
	for i, s := range texts {
		if strings.TrimSpace(s) == "" {
			continue // zero vector below; servers reject or mis-embed empty input
		}
		pos = append(pos, i)
		inputs = append(inputs, prefix+embed.TruncateRunes(s, e.cfg.MaxChars))
	}
	bs := batches(inputs, e.cfg.BatchSize, e.cfg.MaxBatchBytes)
	for bi, b := range bs {
		vecs, err := e.embedChecked(ctx, inputs[b.lo:b.hi])
		if err != nil {
			if len(bs) > 1 {
				err = fmt.Errorf("batch %d/%d (texts %d-%d): %w", bi+1, len(bs), pos[b.lo], pos[b.hi-1], err)
			}
			return nil, e.fail(err)
		}
		for j, v := range vecs {
			out[pos[b.lo+j]] = v
		}
	}
	if len(pos) < len(texts) {
		d := e.getDim()
		if d == 0 {
			if err := e.probe(ctx); err != nil {
				return nil, err
			}
			d = e.getDim()
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, d)
			}
		}
	}
	return out, nil
}

// probe embeds one short text so the dimension is known (and checked).
func (e *engine) probe(ctx context.Context) error {
	if _, err := e.embedChecked(ctx, []string{e.prefixes.Document + probeText}); err != nil {
		return e.fail(fmt.Errorf("probe: %w", err))
	}
	return nil
}

// embedChecked embeds one batch and validates and normalises the answer.
func (e *engine) embedChecked(ctx context.Context, inputs []string) ([][]float32, error) {
	raw, err := e.be.embed(ctx, inputs)
	if err != nil {
		return nil, err
	}
	if len(raw) != len(inputs) {
		return nil, fmt.Errorf("server returned %d embeddings for %d texts", len(raw), len(inputs))
	}
	out := make([][]float32, len(raw))
	for i, v := range raw {
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding %d: %w: empty vector", i, embed.ErrDimension)
		}
		e.dim.CompareAndSwap(0, int64(len(v))) // learn from the first answer
		u, err := toUnit(v, e.getDim())
		if err != nil {
			return nil, fmt.Errorf("embedding %d: %w", i, err)
		}
		out[i] = u
	}
	return out, nil
}

// maxResponse bounds a successful response for n texts: generous for
// 8192 dimensions written out as long decimals.
func maxResponse(n int) int64 { return 1<<20 + int64(n)*(256<<10) }

// span is a batch: inputs[lo:hi].
type span struct{ lo, hi int }

// batches cuts inputs into runs of at most size texts and (unless a single
// text is bigger) maxBytes bytes of text.
func batches(inputs []string, size, maxBytes int) []span {
	var out []span
	lo, n := 0, 0
	for i, s := range inputs {
		b := len(s) + 3 // quotes and comma
		if i > lo && (i-lo >= size || n+b > maxBytes) {
			out = append(out, span{lo, i})
			lo, n = i, 0
		}
		n += b
	}
	if lo < len(inputs) {
		out = append(out, span{lo, len(inputs)})
	}
	return out
}
