package model2vec

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
)

// testTensor is a tensor to write into a safetensors fixture.
type testTensor struct {
	name  string
	dtype string
	shape []int64
	data  []byte
}

// safetensorsBytes serialises tensors (in the given order) with the
// header padded to 8 bytes, as the reference writer does.
func safetensorsBytes(ts []testTensor, metadata map[string]string) []byte {
	hdr := map[string]any{}
	if metadata != nil {
		hdr["__metadata__"] = metadata
	}
	var data []byte
	for _, t := range ts {
		hdr[t.name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": []int{len(data), len(data) + len(t.data)}}
		data = append(data, t.data...)
	}
	js, _ := json.Marshal(hdr)
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	return append(append(out, js...), data...)
}

// f32Bytes encodes float32s little-endian.
func f32Bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

// f16Bytes encodes float32s as little-endian halves.
func f16Bytes(v []float32) []byte {
	out := make([]byte, 0, 2*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint16(out, safetensors.F32ToF16(x))
	}
	return out
}

// i64Bytes encodes int64s little-endian.
func i64Bytes(v []int64) []byte {
	out := make([]byte, 0, 8*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, uint64(x))
	}
	return out
}

// testDim is the dimension of the fixture models.
const testDim = 8

// testEmbeddings returns rows × testDim deterministic, distinct vectors.
func testEmbeddings(rows int) []float32 {
	out := make([]float32, rows*testDim)
	for i := range out {
		out[i] = float32(math.Sin(float64(i)*0.7+1)) * float32(1+i%5)
	}
	return out
}

// fixtureFiles returns the files of a fixture model folder.
func fixtureFiles(tok []byte, rows int, dtype string, extra ...testTensor) map[string][]byte {
	emb := testEmbeddings(rows)
	data := f32Bytes(emb)
	if dtype == "F16" {
		data = f16Bytes(emb)
	}
	ts := append([]testTensor{{"embeddings", dtype, []int64{int64(rows), testDim}, data}}, extra...)
	return map[string][]byte{
		modelFile:     safetensorsBytes(ts, map[string]string{"format": "np"}),
		tokenizerFile: tok,
		configFile:    []byte(`{"model_type": "model2vec", "normalize": true, "hidden_dim": 8}`),
	}
}

// writeFiles writes files into dir.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// f64Bytes encodes float64s little-endian.
func f64Bytes(v []float64) []byte {
	out := make([]byte, 0, 8*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

// i32Bytes encodes int32s little-endian.
func i32Bytes(v []int32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, uint32(x))
	}
	return out
}

// mathBits is math.Float32bits, short for the tests.
func mathBits(f float32) uint32 { return math.Float32bits(f) }
