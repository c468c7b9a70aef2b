package onnx

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed"
	gobert "github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// TestPureGoMatchesReference embeds the 206 reference texts with the
// real all-MiniLM-L6-v2 weights in the pure-Go encoder, read both ways:
// from the publisher's model.safetensors and from the ONNX graph
// install-model writes, the latter also with the plain-Go kernel alone
// (about 25 times slower). Every text must reach cosine ≥ 0.9999 with
// the independent numpy vectors.
func TestPureGoMatchesReference(t *testing.T) {
	raw, converted, _ := convertedMiniLM(t)
	texts, want := loadReference(t)
	in := referenceTexts(texts)
	for name, c := range map[string]struct{ dir, kernel string }{
		"safetensors": {raw, ""}, "onnx": {converted, ""},
		// the path of a CPU without AVX2
		"onnx, plain Go": {converted, "go"},
	} {
		t.Run(name, func(t *testing.T) {
			e, err := OpenPureGo(context.Background(), c.dir, Options{Kernel: c.kernel})
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Embed(context.Background(), in, embed.Document)
			if err != nil {
				t.Fatal(err)
			}
			worst, at := checkAgainst(t, in, got, want, "the reference")
			if e.Truncated() == 0 {
				t.Error("no text counted as cut at the window")
			}
			t.Logf("kernel %s: lowest cosine %.8f (text %d %.30q), %d texts cut", e.Kernel(), worst, at, in[at], e.Truncated())
		})
	}
}

// TestPureGoTinyModel runs a small random model through the whole
// pure-Go path (folder, tokenizer, CLS … SEP, the window, pooling) and
// compares it with onnxgen's float64 reference on the same ids.
func TestPureGoTinyModel(t *testing.T) {
	m := generate(t, tiny(false))
	dir := folderFor(t, m, "")
	e, err := OpenPureGo(context.Background(), dir, Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 20) // far past 64 tokens
	texts := []string{"hello world", "", long, "a note about cats", "markdown **bold** and [links](x.md)"}
	got, err := e.Embed(context.Background(), texts, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	if e.Truncated() != 1 || e.MaxLength() != 64 {
		t.Errorf("truncated %d (max length %d), want 1 text cut at 64", e.Truncated(), e.MaxLength())
	}
	var ws tokenizer.Workspace
	for i, text := range texts {
		seq, _ := single(e.f.tok.Encode(&ws, text), e.f.special, e.MaxLength())
		mask := make([]int64, len(seq.ids))
		for j := range mask {
			mask[j] = 1
		}
		hidden := m.Forward([][]int64{seq.ids}, [][]int64{seq.types}, [][]int64{mask})[0]
		want := make([]float32, m.Hidden)
		for _, tok := range hidden {
			for j, x := range tok {
				want[j] += float32(x / float64(len(hidden)))
			}
		}
		if c := cosine(got[i], want); c < 0.9999 {
			t.Errorf("text %d %.30q: cosine %.6f with the float64 reference", i, text, c)
		}
	}
	if v, err := e.Embed(context.Background(), nil, embed.Query); err != nil || len(v) != 0 {
		t.Errorf("empty batch: %d vectors, %v", len(v), err)
	}
	if !strings.HasPrefix(e.ID(), "transformer:model@") || e.Dim() != 32 {
		t.Errorf("ID %q, dim %d", e.ID(), e.Dim())
	}
}

// TestPureGoMismatchedFiles checks that a folder whose files do not
// belong together fails to open with an error naming the mismatch.
func TestPureGoMismatchedFiles(t *testing.T) {
	m := generate(t, tiny(false))
	small := generate(t, onnxgen.Config{Vocab: 1000, Hidden: 32, Layers: 2, Heads: 4, Intermediate: 64, MaxPositions: 64, TypeVocab: 2, Seed: 1})
	tests := []struct {
		name  string
		setup func(dir string) error
		want  string
	}{
		{"config wider than the weights", func(dir string) error {
			return rewriteConfig(dir, "hidden_size", 64)
		}, "shape"},
		{"more layers in config", func(dir string) error {
			return rewriteConfig(dir, "num_hidden_layers", 3)
		}, "l2."},
		{"not bert", func(dir string) error {
			return rewriteConfig(dir, "model_type", "xlm-roberta")
		}, "model_type"},
		{"graph of another origin", func(dir string) error {
			tensor := append(append(pbField(1, []byte{1}), 0x10, 0x01), append(pbField(8, []byte("embeddings.word_embeddings.weight")), pbField(9, make([]byte, 4))...)...)
			return os.WriteFile(filepath.Join(dir, ModelFile), pbField(7, pbField(5, tensor)), 0o644)
		}, "not a graph install-model wrote"},
		{"no graph", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ModelFile), []byte("\x08\x08"), 0o644)
		}, "no graph"},
		{"damaged graph", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ModelFile), []byte("\x3a\xff\xff\x01"), 0o644)
		}, "truncated"},
		{"graph cut short (an interrupted copy)", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ModelFile), m.ONNX[:len(m.ONNX)/2], 0o644)
		}, "truncated"},
		{"graph changed since the install", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"files":[{"name":"onnx/model.onnx","sha256":"0123"}]}`), 0o644)
		}, "reinstall it"},
		{"tokenizer of a bigger vocabulary", func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, ModelFile), small.ONNX, 0o644); err != nil {
				return err
			}
			return rewriteConfig(dir, "vocab_size", 1000)
		}, "the tokenizer is not this model's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := folderFor(t, m, "")
			if err := tt.setup(dir); err != nil {
				t.Fatal(err)
			}
			_, err := OpenPureGo(context.Background(), dir, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

// rewriteConfig sets one key of a folder's config.json.
func rewriteConfig(dir, key string, v any) error {
	p := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return err
	}
	cfg[key] = v
	if data, err = json.Marshal(cfg); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// pbField encodes a length-delimited protocol-buffers field.
func pbField(num int, b []byte) []byte {
	return append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num<<3|2)), uint64(len(b))), b...)
}

// TestPureGoKernelChoice forces the plain-Go kernel, as a CPU without
// AVX2 runs, by option and by environment: the vectors are the vector
// kernels' (cosine ≥ 0.99999), and a kernel set the CPU cannot run is
// an error naming the ones it can.
func TestPureGoKernelChoice(t *testing.T) {
	dir := folderFor(t, generate(t, tiny(false)), "")
	texts := []string{"hello world", strings.Repeat("a long note about cats and dogs ", 12), "markdown **bold**"}
	embedWith := func(opts Options) (*PureGo, [][]float32) {
		t.Helper()
		e, err := OpenPureGo(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Embed(context.Background(), texts, embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		return e, v
	}
	fast, want := embedWith(Options{})
	t.Setenv(KernelEnv, "go")
	for name, opts := range map[string]Options{"env": {}, "option": {Kernel: "go"}} {
		e, got := embedWith(opts)
		if e.Kernel() != "go" {
			t.Errorf("%s: kernel %q, want go", name, e.Kernel())
		}
		for i := range texts {
			if c := cosine(got[i], want[i]); c < 0.99999 {
				t.Errorf("%s: text %d: cosine %.7f between the go and %s kernels", name, i, c, fast.Kernel())
			}
		}
	}
	if _, err := OpenPureGo(context.Background(), dir, Options{Kernel: "sse9"}); !errors.Is(err, gobert.ErrKernel) {
		t.Errorf("unknown kernel: err %v, want ErrKernel", err)
	}
}
