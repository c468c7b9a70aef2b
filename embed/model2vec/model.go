package model2vec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// File names inside a model folder.
const (
	modelFile     = "model.safetensors"
	tokenizerFile = "tokenizer.json"
	configFile    = "config.json"
)

// Model is a loaded model2vec model. It implements embed.Embedder and is
// safe for concurrent use.
type Model struct {
	name      string
	dir       string
	sha256    string // model.safetensors
	tokSHA256 string // tokenizer.json
	cfgSHA256 string // config.json, "" without one
	t         *tensors
	tok       *tokenizer.Tokenizer
	normalize bool
	pool      sync.Pool // *workspace
}

var _ embed.Embedder = (*Model)(nil)

// Info describes a loaded model.
type Info struct {
	// Name is the alias the model was installed under, or the folder name.
	Name string
	// Dir is the model folder.
	Dir string
	// SHA256 is the hex digest of model.safetensors.
	SHA256 string
	// TokenizerSHA256 and ConfigSHA256 are the hex digests of
	// tokenizer.json and config.json ("" when there is no config.json).
	TokenizerSHA256, ConfigSHA256 string
	// Dim is the vector dimension; Vocab the number of tokenizer entries.
	Dim, Vocab int
	// Normalize is config.json's "normalize". Embed L2-normalises either
	// way, as embed.Embedder requires; the flag only says whether
	// model2vec itself would.
	Normalize bool
}

// maxJSONFile caps the tokenizer.json and config.json that Load reads (a
// variable for the tests).
var maxJSONFile int64 = DefaultMaxFileBytes

// Load opens the model in dir: model.safetensors and tokenizer.json are
// required, config.json is optional; the JSON files may not exceed 64 MiB
// (DefaultMaxFileBytes). If dir holds the manifest Install writes, every
// file it lists is checked against its recorded SHA-256. The embedding
// table and weights must be finite: a NaN or infinity fails the load,
// naming the tensor.
func Load(ctx context.Context, dir string) (*Model, error) {
	man, err := readManifest(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	m := &Model{dir: dir, name: filepath.Base(filepath.Clean(dir))}
	if abs, err := filepath.Abs(dir); err == nil {
		m.name = filepath.Base(abs)
	}
	if man != nil && man.Alias != "" {
		m.name = man.Alias
	}

	tokData, err := readFileCapped(filepath.Join(dir, tokenizerFile), maxJSONFile)
	if err != nil {
		return nil, fmt.Errorf("model2vec: read tokenizer: %w", err)
	}
	m.tokSHA256 = sha256Hex(tokData)
	if err := man.check(tokenizerFile, m.tokSHA256); err != nil {
		return nil, err
	}
	if m.tok, err = tokenizer.Parse(tokData, tokenizerOptions); err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", filepath.Join(dir, tokenizerFile), err)
	}

	cfgData, err := readFileCapped(filepath.Join(dir, configFile), maxJSONFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("model2vec: read config: %w", err)
	default:
		m.cfgSHA256 = sha256Hex(cfgData)
		if err := man.check(configFile, m.cfgSHA256); err != nil {
			return nil, err
		}
		var cfg struct {
			Normalize *bool `json:"normalize"`
		}
		if err := json.Unmarshal(cfgData, &cfg); err != nil {
			return nil, fmt.Errorf("model2vec: %s: %w", filepath.Join(dir, configFile), err)
		}
		// model2vec's StaticModel defaults to false when the key is absent.
		m.normalize = cfg.Normalize != nil && *cfg.Normalize
	}

	if m.t, err = readTensorFile(ctx, filepath.Join(dir, modelFile)); err != nil {
		return nil, fmt.Errorf("model2vec: %w", err)
	}
	if err := man.check(modelFile, m.t.sha256); err != nil {
		return nil, err
	}
	m.sha256 = m.t.sha256
	if err := m.checkShapes(); err != nil {
		return nil, fmt.Errorf("model2vec: %s: %w", dir, err)
	}
	m.pool.New = func() any { return new(workspace) }
	return m, nil
}

// checkShapes makes sure every id the tokenizer can produce has a row,
// weight and mapping entry, so Embed never indexes out of range.
func (m *Model) checkShapes() error {
	maxID := int(m.tok.MaxID())
	t := m.t
	if t.mapping == nil && maxID >= t.rows {
		return fmt.Errorf("%w: tokenizer ids go up to %d but the embedding table has %d rows", ErrSafetensors, maxID, t.rows)
	}
	if t.mapping != nil {
		if maxID >= len(t.mapping) {
			return fmt.Errorf("%w: tokenizer ids go up to %d but the mapping has %d entries", ErrSafetensors, maxID, len(t.mapping))
		}
		for i, r := range t.mapping {
			if r < 0 || int(r) >= t.rows {
				return fmt.Errorf("%w: mapping[%d] = %d is outside the %d-row embedding table", ErrSafetensors, i, r, t.rows)
			}
		}
	}
	if t.weights != nil && maxID >= len(t.weights) {
		return fmt.Errorf("%w: tokenizer ids go up to %d but there are %d weights", ErrSafetensors, maxID, len(t.weights))
	}
	return nil
}

// ID identifies the model, its exact weights and its exact tokenizer:
// "model2vec:<name>@<W>-<T>/<dim>", where W is the first 12 hex digits of
// the SHA-256 of model.safetensors and T the first 12 of a SHA-256 over
// the digests of tokenizer.json and, if present, config.json (see
// filesDigest), e.g. "model2vec:potion-base-8M@1a2b3c4d5e6f-0a1b2c3d4e5f/256".
// An edited tokenizer thus never mixes its vectors with the old ones.
//
// Before T was added, IDs were "model2vec:<name>@<W>/<dim>".
func (m *Model) ID() string {
	return fmt.Sprintf("model2vec:%s@%s-%s/%d", m.name, m.sha256[:12], filesDigest(m.tokSHA256, m.cfgSHA256)[:12], m.t.dim)
}

// filesDigest is the hex SHA-256 of "tokenizer.json <digest>\n" followed,
// when cfgSum is not empty, by "config.json <digest>\n".
func filesDigest(tokSum, cfgSum string) string {
	s := tokenizerFile + " " + tokSum + "\n"
	if cfgSum != "" {
		s += configFile + " " + cfgSum + "\n"
	}
	return sha256Hex([]byte(s))
}

// Dim is the vector dimension.
func (m *Model) Dim() int { return m.t.dim }

// Info describes the model.
func (m *Model) Info() Info {
	return Info{Name: m.name, Dir: m.dir, SHA256: m.sha256, TokenizerSHA256: m.tokSHA256, ConfigSHA256: m.cfgSHA256,
		Dim: m.t.dim, Vocab: m.tok.VocabSize(), Normalize: m.normalize}
}

// tokenize returns the ids model2vec would pool for text.
func (m *Model) tokenize(text string) []int32 {
	ws := m.pool.Get().(*workspace)
	defer m.pool.Put(ws)
	return append([]int32(nil), m.tok.Encode(&ws.tok, text)...)
}

// Embed returns one L2-normalised vector per text: the mean of its token
// vectors, as model2vec computes it. model2vec models embed queries and
// documents alike, so kind is ignored. Large batches are spread over
// GOMAXPROCS goroutines.
func (m *Model) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dim := m.t.dim
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*dim)
	for i := range out {
		out[i] = backing[i*dim : (i+1)*dim : (i+1)*dim]
	}
	const batch = 16 // texts a worker claims at a time
	var next atomic.Int64
	work := func() {
		ws := m.pool.Get().(*workspace)
		defer m.pool.Put(ws)
		for ctx.Err() == nil {
			end := int(next.Add(batch))
			start := end - batch
			if start >= len(texts) {
				return
			}
			for i := start; i < min(end, len(texts)); i++ {
				m.embedOne(ws, texts[i], out[i])
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), (len(texts)+2*batch-1)/(2*batch))
	if workers <= 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(work)
		}
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// embedOne writes the normalised mean of text's token vectors into out,
// which is zeroed. A text without tokens, or whose vectors cancel out,
// keeps the zero vector.
func (m *Model) embedOne(ws *workspace, text string, out []float32) {
	t := m.t
	dim := t.dim
	ids := m.tok.Encode(&ws.tok, text)
	for _, id := range ids {
		row := int(id)
		if t.mapping != nil {
			row = int(t.mapping[id])
		}
		w := float32(1)
		if t.weights != nil {
			w = t.weights[id]
		}
		addScaled(out, t.emb[row*dim:row*dim+dim], w)
	}
	if !finite(out) {
		// The float32 sum overflowed (the table and weights are finite,
		// Load checks): sum again in float64, which cannot.
		clear(out)
		m.embedWide(ws, ids, out)
		return
	}
	// The mean's 1/n factor is left out: it cancels in the normalisation.
	embed.Normalize(out)
}

// finite reports whether v has no infinite or NaN component.
func finite(v []float32) bool {
	for _, x := range v {
		if math.IsInf(float64(x), 0) || x != x {
			return false
		}
	}
	return true
}

// embedWide is embedOne's float64 path for sums beyond float32's range.
// out is zeroed on entry.
func (m *Model) embedWide(ws *workspace, ids []int32, out []float32) {
	t := m.t
	dim := t.dim
	acc := ws.wide(dim)
	for _, id := range ids {
		row := int(id)
		if t.mapping != nil {
			row = int(t.mapping[id])
		}
		w := float64(1)
		if t.weights != nil {
			w = float64(t.weights[id])
		}
		for i, x := range t.emb[row*dim : row*dim+dim] {
			acc[i] += w * float64(x)
		}
	}
	// Scale into float32's range by the largest component, then normalise.
	var top float64
	for _, x := range acc {
		top = max(top, math.Abs(x))
	}
	if top == 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return
	}
	for i, x := range acc {
		out[i] = float32(x / top)
	}
	embed.Normalize(out)
}

// addScaled adds w·src to dst. The loop is unrolled by 8, which lets the
// compiler drop bounds checks and keep eight independent adds in flight.
func addScaled(dst, src []float32, w float32) {
	src = src[:len(dst)]
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		d, s := dst[i:i+8:i+8], src[i:i+8:i+8]
		d[0] += w * s[0]
		d[1] += w * s[1]
		d[2] += w * s[2]
		d[3] += w * s[3]
		d[4] += w * s[4]
		d[5] += w * s[5]
		d[6] += w * s[6]
		d[7] += w * s[7]
	}
	for ; i < len(dst); i++ {
		dst[i] += w * src[i]
	}
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// readFileCapped reads a file of at most limit bytes.
func readFileCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}
