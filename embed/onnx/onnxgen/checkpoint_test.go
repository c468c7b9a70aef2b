package onnxgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
)

// small is a BERT of hidden 8 whose intermediate size differs from it, so
// that a Linear weight read the wrong way round has the wrong shape.
func small() Config {
	return Config{Vocab: 50, Hidden: 8, Layers: 2, Heads: 2, Intermediate: 12, MaxPositions: 16, TypeVocab: 2, Seed: 3, LayerNormEps: 1e-7}
}

func newSmall(t *testing.T) *Model {
	t.Helper()
	m, err := New(small())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckpointRoundTrip writes a generated model as a Hugging Face
// checkpoint and reads it back: the same graph, byte for byte, and the
// same reference outputs.
func TestCheckpointRoundTrip(t *testing.T) {
	m := newSmall(t)
	dir := t.TempDir()
	if err := m.WriteCheckpoint(dir); err != nil {
		t.Fatal(err)
	}
	got, err := FromCheckpoint(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Config
	want.Seed = 0 // not part of a checkpoint
	if got.Config != want {
		t.Errorf("config %+v, want %+v", got.Config, want)
	}
	if !bytes.Equal(got.ONNX, m.ONNX) {
		t.Error("the graph differs from the original's")
	}
	ids, types, mask := [][]int64{{1, 7, 49, 3}}, [][]int64{{0, 0, 1, 1}}, [][]int64{{1, 1, 1, 0}}
	a, b := m.Forward(ids, types, mask)[0], got.Forward(ids, types, mask)[0]
	for s := range a {
		for i := range a[s] {
			if a[s][i] != b[s][i] {
				t.Fatalf("Forward differs at [%d][%d]: %v vs %v", s, i, b[s][i], a[s][i])
			}
		}
	}
}

// TestFromCheckpointErrors changes one thing in a good checkpoint and
// expects an error naming it.
func TestFromCheckpointErrors(t *testing.T) {
	m := newSmall(t)
	tests := []struct {
		name   string
		config map[string]any // keys replaced in config.json (nil value deletes)
		drop   string         // tensor removed
		extra  bool           // a tensor of an encoder layer config.json does not count
		msg    string
	}{
		{name: "not bert", config: map[string]any{"model_type": "roberta"}, msg: `model_type is "roberta"`},
		{name: "relu", config: map[string]any{"hidden_act": "relu"}, msg: `hidden_act is "relu"`},
		{name: "relative positions", config: map[string]any{"position_embedding_type": "relative_key"}, msg: "position_embedding_type"},
		{name: "classifier", config: map[string]any{"architectures": []string{"BertForSequenceClassification"}}, msg: "BertForSequenceClassification"},
		{name: "no hidden size", config: map[string]any{"hidden_size": nil}, msg: "hidden_size is missing"},
		{name: "heads do not divide", config: map[string]any{"num_attention_heads": 3}, msg: "not a multiple"},
		{name: "hidden size disagrees", config: map[string]any{"hidden_size": 10, "num_attention_heads": 2}, msg: "want [max_position_embeddings, 10]"},
		{name: "intermediate disagrees", config: map[string]any{"intermediate_size": 16}, msg: `"encoder.layer.0.intermediate.dense.weight" has shape [12 8], config.json implies [16 8]`},
		{name: "vocab disagrees", config: map[string]any{"vocab_size": 60}, msg: `"embeddings.word_embeddings.weight" has shape [50 8], config.json implies [60 8]`},
		{name: "positions disagree", config: map[string]any{"max_position_embeddings": 512}, msg: "has 16 rows but config.json's max_position_embeddings is 512"},
		{name: "fewer layers", config: map[string]any{"num_hidden_layers": 1}, msg: "beyond config.json's num_hidden_layers 1"},
		{name: "missing tensor", drop: "encoder.layer.1.output.LayerNorm.bias", msg: `no tensor "encoder.layer.1.output.LayerNorm.bias"`},
		{name: "extra layer", extra: true, msg: `"encoder.layer.2.output.dense.bias" is beyond`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := m.WriteCheckpoint(dir); err != nil {
				t.Fatal(err)
			}
			if tt.config != nil {
				editJSON(t, filepath.Join(dir, ConfigFile), tt.config)
			}
			if tt.drop != "" || tt.extra {
				rewriteTensors(t, filepath.Join(dir, WeightsFile), tt.drop, tt.extra)
			}
			_, err := FromCheckpoint(context.Background(), dir)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want ErrCheckpoint mentioning %q", err, tt.msg)
			}
		})
	}
}

// editJSON replaces keys of a JSON object file.
func editJSON(t *testing.T, path string, set map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		if v == nil {
			delete(obj, k)
		} else {
			obj[k] = v
		}
	}
	if data, err = json.Marshal(obj); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rewriteTensors drops a tensor from a safetensors file, and with extra
// adds encoder.layer.2.output.dense.bias.
func rewriteTensors(t *testing.T, path, drop string, extra bool) {
	t.Helper()
	f, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ts []safetensors.Tensor
	for _, ti := range f.Sorted() {
		if ti.Name == drop {
			continue
		}
		v, err := f.Floats(context.Background(), ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, safetensors.Tensor{Name: ti.Name, DType: ti.DType, Shape: ti.Shape, Data: safetensors.F32Bytes(v)})
	}
	if extra {
		ts = append(ts, safetensors.Tensor{Name: "encoder.layer.2.output.dense.bias", DType: "F32", Shape: []int64{8}, Data: make([]byte, 32)})
	}
	if err := os.WriteFile(path, safetensors.Encode(ts, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}
