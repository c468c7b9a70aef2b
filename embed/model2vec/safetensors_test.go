package model2vec

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// rawFile builds a safetensors file from a literal header and data.
func rawFile(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(out, header...), data...)
}

func TestReadTensorFileErrors(t *testing.T) {
	emb := f32Bytes(testEmbeddings(2))
	valid := safetensorsBytes([]testTensor{{"embeddings", "F32", []int64{2, testDim}, emb}}, nil)
	tests := []struct {
		name string
		file []byte
		want error
		msg  string
	}{
		{"empty file", nil, ErrSafetensors, "too short"},
		{"truncated length", []byte{1, 2, 3}, ErrSafetensors, "too short"},
		{"header past end", valid[:20], ErrSafetensors, "truncated"},
		{"huge header length", binary.LittleEndian.AppendUint64(nil, 1<<62), ErrSafetensors, "limit"},
		{"header not json", rawFile("{nope", nil), ErrSafetensors, "header JSON"},
		{"header not object", rawFile("[1, 2]", nil), ErrSafetensors, "not a JSON object"},
		{"unknown dtype", rawFile(`{"embeddings":{"dtype":"Q4","shape":[1,1],"data_offsets":[0,1]}}`, make([]byte, 1)), ErrSafetensors, "unknown dtype"},
		{"offsets past data", rawFile(`{"embeddings":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}`, make([]byte, 4)), ErrSafetensors, "outside"},
		{"offsets reversed", rawFile(`{"embeddings":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, make([]byte, 4)), ErrSafetensors, "outside"},
		{"negative offset", rawFile(`{"embeddings":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}`, make([]byte, 4)), ErrSafetensors, "embeddings"},
		{"size mismatch", rawFile(`{"embeddings":{"dtype":"F32","shape":[2,2],"data_offsets":[0,8]}}`, make([]byte, 8)), ErrSafetensors, "needs 16 bytes"},
		{"shape overflow", rawFile(`{"embeddings":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, make([]byte, 8)), ErrSafetensors, "overflow"},
		{"negative dim", rawFile(`{"embeddings":{"dtype":"F32","shape":[-1,2],"data_offsets":[0,8]}}`, make([]byte, 8)), ErrSafetensors, "negative"},
		{"one offset", rawFile(`{"embeddings":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, make([]byte, 4)), ErrSafetensors, "2 numbers"},
		{"overlap", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"embeddings":{"dtype":"F32","shape":[1,1],"data_offsets":[4,8]}}`, make([]byte, 8)), ErrSafetensors, "overlap"},
		{"bad metadata", rawFile(`{"__metadata__":{"a":1}}`, nil), ErrSafetensors, "__metadata__"},
		{"no embeddings", rawFile(`{"other":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}}`, make([]byte, 4)), ErrSafetensors, "no embedding tensor"},
		{"1-D embeddings", rawFile(`{"embeddings":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)), ErrSafetensors, "want [tokens, dim]"},
		{"integer embeddings", rawFile(`{"embeddings":{"dtype":"I32","shape":[1,2],"data_offsets":[0,8]}}`, make([]byte, 8)), ErrUnsupported, "I32"},
		{"fp8 embeddings", rawFile(`{"embeddings":{"dtype":"F8_E4M3","shape":[1,2],"data_offsets":[0,2]}}`, make([]byte, 2)), ErrUnsupported, "F8_E4M3"},
		{"weights not a vector", rawFile(`{"embeddings":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},"weights":{"dtype":"F32","shape":[1,1,1],"data_offsets":[4,8]}}`, make([]byte, 8)), ErrUnsupported, "weights"},
		{"mapping of floats", rawFile(`{"embeddings":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},"mapping":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)), ErrUnsupported, "mapping"},
		{"mapping value too big", rawFile(`{"embeddings":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]},"mapping":{"dtype":"I64","shape":[1],"data_offsets":[4,12]}}`, append(make([]byte, 4), i64Bytes([]int64{1 << 40})...)), ErrSafetensors, "out of range"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("x", i+1))
			if err := os.WriteFile(path, tt.file, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := readTensorFile(context.Background(), path)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want %v mentioning %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestReadTensorFileDTypes(t *testing.T) {
	emb := testEmbeddings(3)
	bf16 := make([]byte, 0, 2*len(emb))
	i8 := make([]byte, len(emb))
	for i, x := range emb {
		bf16 = binary.LittleEndian.AppendUint16(bf16, uint16(mathBits(x)>>16))
		i8[i] = byte(int8(int(x * 10)))
	}
	tests := []struct {
		dtype string
		data  []byte
		want  func(i int) float32
		tol   float32
	}{
		{"F32", f32Bytes(emb), func(i int) float32 { return emb[i] }, 0},
		{"F16", f16Bytes(emb), func(i int) float32 { return emb[i] }, 4e-3},
		{"BF16", bf16, func(i int) float32 { return emb[i] }, 4e-2},
		{"I8", i8, func(i int) float32 { return float32(int8(int(emb[i] * 10))) }, 0},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.dtype, func(t *testing.T) {
			path := filepath.Join(dir, tt.dtype)
			file := safetensorsBytes([]testTensor{
				{"weights", "F64", []int64{3}, f64Bytes([]float64{0.5, 1, 2})},
				{"embeddings", tt.dtype, []int64{3, testDim}, tt.data},
				{"mapping", "I32", []int64{3}, i32Bytes([]int32{2, 1, 0})},
				{"unused", "U8", []int64{3}, []byte{1, 2, 3}},
			}, nil)
			if err := os.WriteFile(path, file, 0o600); err != nil {
				t.Fatal(err)
			}
			ts, err := readTensorFile(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if ts.rows != 3 || ts.dim != testDim || len(ts.emb) != 3*testDim {
				t.Fatalf("shape %d×%d", ts.rows, ts.dim)
			}
			for i, got := range ts.emb {
				if d := got - tt.want(i); d > tt.tol || d < -tt.tol {
					t.Fatalf("emb[%d] = %v, want %v", i, got, tt.want(i))
				}
			}
			if want := []float32{0.5, 1, 2}; !slices.Equal(ts.weights, want) {
				t.Errorf("weights = %v", ts.weights)
			}
			if want := []int32{2, 1, 0}; len(ts.mapping) != 3 || ts.mapping[0] != 2 || ts.mapping[2] != 0 {
				t.Errorf("mapping = %v, want %v", ts.mapping, want)
			}
			if ts.sha256 != sha256Hex(file) {
				t.Errorf("sha256 = %s, want %s", ts.sha256, sha256Hex(file))
			}
		})
	}
}

func TestReadTensorFileCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), modelFile)
	writeFiles(t, filepath.Dir(path), map[string][]byte{modelFile: fixtureFiles(tokenizertest.WordPieceJSON(), 20, "F32")[modelFile]})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := readTensorFile(ctx, path); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}
