//go:build ort

package onnx

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// Available reports whether this binary was built with ONNX Runtime.
const Available = true

// environment is ONNX Runtime's process-wide environment: the library can
// be loaded once per process, so this is the package's one piece of
// shared state.
var environment struct {
	sync.Mutex
	library string
}

// initRuntime loads the library and creates the environment once.
func initRuntime(library string) error {
	environment.Lock()
	defer environment.Unlock()
	if environment.library != "" {
		if library != environment.library {
			return fmt.Errorf("onnx: ONNX Runtime is already loaded from %s, not %s", environment.library, library)
		}
		return nil
	}
	if library == "" {
		return fmt.Errorf("%w: no library path given", ErrNoLibrary)
	}
	ort.SetSharedLibraryPath(library)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("onnx: load ONNX Runtime from %s: %w", library, err)
	}
	environment.library = library
	return nil
}

// RuntimeVersion is the loaded ONNX Runtime's version, "" before a model
// was opened.
func RuntimeVersion() string {
	environment.Lock()
	defer environment.Unlock()
	if environment.library == "" {
		return ""
	}
	return ort.GetVersion()
}

// session is one model's ONNX Runtime session. Runs are serialised: each
// already uses every core (intra-op threads).
type session struct {
	mu     sync.Mutex
	s      *ort.DynamicAdvancedSession
	inputs []string // in the model's order
	output string
	shape  ort.Shape // output shape as the model declares it
}

// modelInputs are the inputs this package can feed.
var modelInputs = map[string]bool{"input_ids": true, "attention_mask": true, "token_type_ids": true}

func newSession(path string, opts Options, want string) (*session, error) {
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", path, err)
	}
	s := &session{}
	for _, in := range ins {
		if !modelInputs[in.Name] {
			return nil, fmt.Errorf("onnx: %s: unexpected model input %q", path, in.Name)
		}
		s.inputs = append(s.inputs, in.Name)
	}
	for _, out := range outs {
		if out.Name == want {
			s.output, s.shape = out.Name, out.Dimensions
		}
	}
	if s.output == "" {
		return nil, fmt.Errorf("onnx: %s: the model has no %q output", path, want)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx: session options: %w", err)
	}
	defer so.Destroy()
	for _, set := range []func() error{
		func() error { return so.SetIntraOpNumThreads(opts.Threads) },
		func() error { return so.SetInterOpNumThreads(1) },
		func() error { return so.AddSessionConfigEntry("session.intra_op.allow_spinning", "0") },
		func() error { return so.AddSessionConfigEntry("session.inter_op.allow_spinning", "0") },
		// Without the arena, a run's activations are freed when it ends:
		// a reranker's batch of 512-token pairs would otherwise keep
		// hundreds of MB for the life of the server.
		func() error { return so.SetCpuMemArena(opts.Arena) },
	} {
		if err := set(); err != nil {
			return nil, fmt.Errorf("onnx: session options: %w", err)
		}
	}
	if s.s, err = ort.NewDynamicAdvancedSession(path, s.inputs, []string{s.output}, so); err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", path, err)
	}
	return s, nil
}

// run feeds a batch and returns the output's values and shape.
func (s *session) run(b *batch) ([]float32, ort.Shape, error) {
	shape := ort.NewShape(int64(b.rows), int64(b.cols))
	var inputs []ort.Value
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, name := range s.inputs {
		data := map[string][]int64{"input_ids": b.ids, "attention_mask": b.mask, "token_type_ids": b.types}[name]
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, nil, fmt.Errorf("onnx: input %s: %w", name, err)
		}
		inputs = append(inputs, t)
	}
	outputs := []ort.Value{nil}
	s.mu.Lock()
	err := s.s.Run(inputs, outputs)
	s.mu.Unlock()
	if err != nil {
		return nil, nil, fmt.Errorf("onnx: run: %w", err)
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("onnx: output %s is not a float32 tensor", s.output)
	}
	return append([]float32(nil), t.GetData()...), t.GetShape().Clone(), nil
}

func (s *session) close() error { return s.s.Destroy() }

// model is what Embedder and Reranker share.
type model struct {
	f         *folder
	s         *session
	opts      Options
	pool      sync.Pool // *tokenizer.Workspace
	truncated atomic.Int64
}

func openModel(ctx context.Context, dir string, opts Options, kind Kind) (*model, error) {
	opts = opts.withDefaults()
	if err := initRuntime(opts.Library); err != nil {
		return nil, err
	}
	f, err := readFolder(ctx, dir)
	if err != nil {
		return nil, err
	}
	if f.checkpoint {
		return nil, fmt.Errorf("onnx: %s: no %s: ONNX Runtime needs the ONNX graph (install-model --from converts a checkpoint)", dir, ModelFile)
	}
	if !f.known { // any folder: the model's outputs tell (see newSession)
		f.spec.Kind = kind
	}
	if f.spec.Kind != kind {
		return nil, fmt.Errorf("onnx: %s is a %s model, not a %s", f.name, f.spec.Kind, kind)
	}
	out := "last_hidden_state"
	if kind == Reranker {
		out = "logits"
	}
	s, err := newSession(f.modelPath, opts, out)
	if err != nil {
		return nil, err
	}
	m := &model{f: f, s: s, opts: opts}
	m.pool.New = func() any { return new(tokenizer.Workspace) }
	return m, nil
}

// encode tokenizes text (ids copied out of the workspace).
func (m *model) encode(text string) []int32 {
	ws := m.pool.Get().(*tokenizer.Workspace)
	defer m.pool.Put(ws)
	return append([]int32(nil), m.f.tok.Encode(ws, text)...)
}

// Embedder is an embedding model in ONNX Runtime. It implements
// TextEmbedder and is safe for concurrent use.
type Embedder struct {
	*model
	dim int
}

// Open opens the embedding model in dir (see readFolder for the layout)
// with ONNX Runtime.
func Open(ctx context.Context, dir string, opts Options) (TextEmbedder, error) {
	m, err := openModel(ctx, dir, opts, Embedding)
	if err != nil {
		return nil, err
	}
	e := &Embedder{model: m, dim: int(m.s.shape[len(m.s.shape)-1])}
	if e.dim <= 0 {
		// The output's last dimension is symbolic: run one text to learn it.
		v, err := e.Embed(ctx, []string{"dimension"}, embed.Document)
		if err != nil {
			m.s.close()
			return nil, err
		}
		e.dim = len(v[0])
		e.truncated.Store(0)
	}
	return e, nil
}

// ID is "transformer:<name>@<digest prefix>/<dim>", as the pure-Go
// encoder's (see folder.modelID).
func (e *Embedder) ID() string { return e.f.modelID(e.dim) }

// Dim is the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// MaxLength is the maximum sequence length, special tokens included.
func (e *Embedder) MaxLength() int { return e.f.spec.MaxLength }

// EnglishOnly reports whether the model is known to be trained on English
// alone (embed.EnglishOnly).
func (e *Embedder) EnglishOnly() bool { return e.f.spec.English }

// Truncated counts the texts cut to MaxLength so far.
func (e *Embedder) Truncated() int64 { return e.truncated.Load() }

// Close releases the session.
func (e *Embedder) Close() error { return e.s.close() }

// Embed returns one L2-normalised vector per text, pooled as the model's
// configuration says. Queries and documents get the model's prefixes.
// Texts run shortest first (less padding), in batches of at most
// Options.BatchSize, fewer when they are long (see spans); the vectors
// come back in the order of texts.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	seqs := make([]sequence, len(texts))
	for i, t := range texts {
		var cut bool
		seqs[i], cut = single(e.encode(e.f.prefix(kind)+t), e.f.special, e.f.spec.MaxLength)
		if cut {
			e.truncated.Add(1)
		}
	}
	order := byLength(seqs)
	sorted := make([]sequence, len(seqs))
	for i, k := range order {
		sorted[i] = seqs[k]
	}
	out := make([][]float32, len(texts))
	for _, sp := range spans(lengths(sorted), e.opts.BatchSize) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := pad(sorted[sp[0]:sp[1]], e.f.padID)
		hidden, shape, err := e.s.run(b)
		if err != nil {
			return nil, err
		}
		if len(shape) != 3 {
			return nil, fmt.Errorf("onnx: %s output has shape %v, want [batch, sequence, hidden]", e.s.output, shape)
		}
		vs, err := pool(hidden, b, int(shape[2]), e.f.spec.Pooling)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			out[order[sp[0]+i]] = v
		}
	}
	return out, nil
}

// lengths are the sequences' lengths.
func lengths(seqs []sequence) []int {
	out := make([]int, len(seqs))
	for i, s := range seqs {
		out[i] = len(s.ids)
	}
	return out
}

// CrossEncoder is a reranker in ONNX Runtime. It implements Scorer and
// is safe for concurrent use.
type CrossEncoder struct {
	*model
}

// OpenReranker opens the cross-encoder in dir with ONNX Runtime.
func OpenReranker(ctx context.Context, dir string, opts Options) (Scorer, error) {
	m, err := openModel(ctx, dir, opts, Reranker)
	if err != nil {
		return nil, err
	}
	return &CrossEncoder{model: m}, nil
}

// Name is the model's alias or folder name.
func (r *CrossEncoder) Name() string { return r.f.name }

// Close releases the session.
func (r *CrossEncoder) Close() error { return r.s.close() }

// Score returns the model's logit for each (query, passage) pair, in the
// order of passages. Pairs run shortest first, in batches of at most
// Options.BatchSize, fewer when they are long (see spans).
func (r *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	q := r.encode(query)
	seqs := make([]sequence, len(passages))
	for i, p := range passages {
		var cut bool
		seqs[i], cut = pair(q, r.encode(p), r.f.special, r.f.spec.MaxLength)
		if cut {
			r.truncated.Add(1)
		}
	}
	order := byLength(seqs)
	sorted := make([]sequence, len(seqs))
	for i, k := range order {
		sorted[i] = seqs[k]
	}
	out := make([]float32, len(passages))
	for _, sp := range spans(lengths(sorted), r.opts.BatchSize) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b := pad(sorted[sp[0]:sp[1]], r.f.padID)
		logits, shape, err := r.s.run(b)
		if err != nil {
			return nil, err
		}
		if len(shape) != 2 || shape[0] != int64(b.rows) || shape[1] < 1 {
			return nil, fmt.Errorf("onnx: logits have shape %v, want [%d, 1]", shape, b.rows)
		}
		for i := range b.rows {
			out[order[sp[0]+i]] = logits[i*int(shape[1])]
		}
	}
	return out, nil
}
