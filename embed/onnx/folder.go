package onnx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// ErrNeedsORT is returned by Open and OpenReranker in a binary built
// without the `ort` tag.
var ErrNeedsORT = errors.New("transformer models need the ort build of enquire-mcp (go build -tags ort, with cgo)")

// Options tune Open and OpenReranker.
type Options struct {
	// Library is the ONNX Runtime shared library (see FindLibrary).
	Library string
	// Threads is ONNX Runtime's intra-op thread count; default the number
	// of CPUs. Inter-op is 1 and intra-op spinning is off: spinning
	// threads fight the Go scheduler on small machines.
	Threads int
	// BatchSize is the number of texts per run; default 8.
	BatchSize int
	// Arena keeps ONNX Runtime's CPU memory arena between runs: batches
	// run about 1.6 times faster (docs/benchmarks.md), but the largest
	// batch's activations stay allocated for the life of the model. For
	// batch jobs (build-embeddings); a server leaves it off.
	Arena bool
	// Kernel is the pure-Go encoder's kernel set ("avx512", "avx2" or
	// "go"; see bert.NewWithKernel); "" means $ENQUIRE_BERT_KERNEL, else
	// the fastest the CPU runs. "go" is the path of a CPU without AVX2,
	// to check or to work around the vector kernels.
	Kernel string
}

// KernelEnv names the environment variable that picks the pure-Go
// encoder's kernel set when Options.Kernel is "".
const KernelEnv = "ENQUIRE_BERT_KERNEL"

func (o Options) withDefaults() Options {
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 8
	}
	return o
}

// TextEmbedder is an embedding model running in ONNX Runtime.
type TextEmbedder interface {
	embed.Embedder
	// Truncated counts the texts cut to the model's maximum length so far.
	Truncated() int64
	// MaxLength is the maximum sequence length, special tokens included.
	MaxLength() int
	// Close releases the session.
	Close() error
}

// Scorer is a cross-encoder reranker running in ONNX Runtime.
type Scorer interface {
	// Name is the model's alias or folder name.
	Name() string
	// Score returns one relevance score (the model's logit) per passage,
	// in order: higher is more relevant.
	Score(ctx context.Context, query string, passages []string) ([]float32, error)
	// Close releases the session.
	Close() error
}

// folder is a model folder read and checked, before any session exists.
type folder struct {
	dir, name string
	spec      Spec
	tok       *tokenizer.Tokenizer
	special   tokenizer.Special
	padID     int64
	known     bool // spec comes from the table of known models
	modelPath string
	// checkpoint says modelPath is model.safetensors: the folder has no
	// ONNX graph.
	checkpoint bool
	digest     string // SHA-256 over the digests of the model file and tokenizer.json
}

// maxJSON caps the JSON files of a model folder.
const maxJSON = 64 << 20

// readFolder reads dir: onnx/model.onnx (or model.onnx, or
// onnx/model_quantized.onnx, or else model.safetensors), tokenizer.json,
// config.json. The model's
// name is the alias in manifest.json (written by install-model), else the
// folder's name; a known name brings its Spec (pooling, prefixes, maximum
// length), any other folder is read with mean pooling, no prefixes and
// config.json's max_position_embeddings (at most 512).
func readFolder(ctx context.Context, dir string) (*folder, error) {
	f := &folder{dir: dir, name: filepath.Base(filepath.Clean(dir))}
	var man struct {
		Alias string `json:"alias"`
		Files []struct {
			Name   string `json:"name"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if data, err := readCapped(filepath.Join(dir, "manifest.json")); err == nil {
		if json.Unmarshal(data, &man) == nil && man.Alias != "" {
			f.name = man.Alias
		}
	}
	for _, p := range []string{ModelFile, "model.onnx", "onnx/model_quantized.onnx"} {
		if st, err := os.Stat(filepath.Join(dir, p)); err == nil && st.Mode().IsRegular() {
			f.modelPath = filepath.Join(dir, p)
			break
		}
	}
	if f.modelPath == "" {
		// A checkpoint folder as its publisher ships it: the pure-Go
		// encoder runs it; ONNX Runtime cannot.
		p := filepath.Join(dir, onnxgen.WeightsFile)
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("onnx: %s: no %s (nor %s): %w", dir, ModelFile, onnxgen.WeightsFile, fs.ErrNotExist)
		}
		f.modelPath, f.checkpoint = p, true
	}
	tokData, err := readCapped(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	if f.tok, err = tokenizer.Parse(tokData, tokenizer.Options{}); err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", filepath.Join(dir, "tokenizer.json"), err)
	}
	if f.special, err = f.tok.Special(); err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", filepath.Join(dir, "tokenizer.json"), err)
	}
	if err := f.readConfig(); err != nil {
		return nil, err
	}
	modelSum, err := fileSHA256(ctx, f.modelPath)
	if err != nil {
		return nil, err
	}
	tokSum := sha256.Sum256(tokData)
	// install-model recorded what it downloaded: a changed file is an error.
	for _, mf := range man.Files {
		rel, _ := filepath.Rel(dir, f.modelPath)
		got := map[string]string{filepath.ToSlash(rel): modelSum, "tokenizer.json": hex.EncodeToString(tokSum[:])}[mf.Name]
		if got != "" && got != mf.SHA256 {
			return nil, fmt.Errorf("onnx: %s: %s has sha256 %s, the install recorded %s: reinstall it", dir, mf.Name, got, mf.SHA256)
		}
	}
	both := sha256.Sum256([]byte(modelSum + " " + hex.EncodeToString(tokSum[:])))
	f.digest = hex.EncodeToString(both[:])
	return f, nil
}

// readConfig fills spec and padID from the table or config.json.
func (f *folder) readConfig() error {
	var cfg struct {
		MaxPositions int    `json:"max_position_embeddings"`
		PadID        *int64 `json:"pad_token_id"`
		Hidden       int    `json:"hidden_size"`
		ModelType    string `json:"model_type"`
	}
	data, err := readCapped(filepath.Join(f.dir, "config.json"))
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("onnx: %s: %w", filepath.Join(f.dir, "config.json"), err)
	}
	if cfg.PadID != nil {
		f.padID = *cfg.PadID
	}
	if s, ok := Lookup(f.name); ok {
		f.spec, f.known = s, true
	} else {
		f.spec = Spec{Name: f.name, Dim: cfg.Hidden, MaxLength: 512, Pooling: readPooling(f.dir)}
	}
	// RoBERTa-style models number positions from pad_token_id + 1.
	limit := cfg.MaxPositions
	if cfg.ModelType == "xlm-roberta" || cfg.ModelType == "roberta" {
		limit -= int(f.padID) + 1
	}
	if limit > 0 && limit < f.spec.MaxLength {
		f.spec.MaxLength = limit
	}
	if f.spec.MaxLength < 3+f.special.PairSeps {
		return fmt.Errorf("onnx: %s: maximum length %d is too short", f.dir, f.spec.MaxLength)
	}
	return nil
}

// readPooling reads sentence-transformers' 1_Pooling/config.json: CLS if
// it says so, else mean.
func readPooling(dir string) Pooling {
	var p struct {
		CLS bool `json:"pooling_mode_cls_token"`
	}
	if data, err := readCapped(filepath.Join(dir, "1_Pooling", "config.json")); err == nil && json.Unmarshal(data, &p) == nil && p.CLS {
		return CLS
	}
	return Mean
}

func readCapped(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJSON {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxJSON)
	}
	return data, nil
}

// fileSHA256 is the hex SHA-256 of a file.
func fileSHA256(ctx context.Context, modelPath string) (string, error) {
	fh, err := os.Open(modelPath)
	if err != nil {
		return "", fmt.Errorf("onnx: %w", err)
	}
	defer fh.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := fh.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("onnx: read %s: %w", modelPath, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// modelID is the ID of an embedding model's vectors: the folder's name
// and digest, and the dimension. Both engines (ONNX Runtime and the
// pure-Go encoder) give a folder the same ID: their vectors agree to a
// cosine of 0.9999 (TestPureGoMatchesReference and the ort reference
// test), so one engine's index serves the other's queries.
func (f *folder) modelID(dim int) string {
	return fmt.Sprintf("transformer:%s@%.12s/%d", f.name, f.digest, dim)
}

// prefix is the text put before a text of kind k.
func (f *folder) prefix(k embed.Kind) string {
	if k == embed.Query {
		return f.spec.QueryPrefix
	}
	return f.spec.DocPrefix
}
