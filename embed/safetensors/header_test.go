package safetensors

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rawFile builds a safetensors file from a literal header and data.
func rawFile(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(out, header...), data...)
}

// TestOpen checks the strict reader: the tensors must fill the data
// section, and Floats decodes and checks values.
func TestOpen(t *testing.T) {
	good := Encode([]Tensor{
		{"a", "F32", []int64{2}, F32Bytes([]float32{1, -2})},
		{"b", "F16", []int64{1}, binary.LittleEndian.AppendUint16(nil, F32ToF16(0.5))},
		{"i", "I64", []int64{1}, make([]byte, 8)},
	}, map[string]string{"format": "pt"})
	nan := Encode([]Tensor{{"a", "F32", []int64{1}, F32Bytes([]float32{float32(nanValue())})}}, nil)
	tests := []struct {
		name string
		file []byte
		msg  string
	}{
		{"good", good, ""},
		{"trailing bytes", append(slices.Clone(good), 0, 0, 0, 0), "tensors end at byte 18 of the 22-byte data section"},
		{"truncated", good[:len(good)-1], `tensor "i": data_offsets [10, 18] outside the 17-byte data section`},
		{"gap", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)), "4 unused bytes before tensor \"a\""},
		{"not finite", nan, "element 0 is NaN"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("f", i+1))
			if err := os.WriteFile(path, tt.file, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err == nil {
				defer f.Close()
				var a []float32
				if a, err = f.Floats(context.Background(), "a"); err == nil && tt.msg == "" {
					if !slices.Equal(a, []float32{1, -2}) {
						t.Errorf("a = %v", a)
					}
					if b, err := f.Floats(context.Background(), "b"); err != nil || b[0] != 0.5 {
						t.Errorf("b = %v, %v", b, err)
					}
					if _, err := f.Floats(context.Background(), "i"); err == nil || !strings.Contains(err.Error(), "dtype I64") {
						t.Errorf("integer tensor read as floats: %v", err)
					}
					if _, err := f.Floats(context.Background(), "z"); err == nil || !strings.Contains(err.Error(), `no tensor "z"`) {
						t.Errorf("missing tensor: %v", err)
					}
				}
			}
			switch {
			case tt.msg == "" && err != nil:
				t.Fatal(err)
			case tt.msg != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.msg)):
				t.Errorf("got %v, want ErrInvalid mentioning %q", err, tt.msg)
			}
		})
	}
}

func nanValue() float64 { return math.NaN() }

// FuzzParseHeader feeds arbitrary bytes to the header parser: it must
// return an error or a header whose tensors all lie inside the data.
func FuzzParseHeader(f *testing.F) {
	f.Add(Encode([]Tensor{{"embeddings", "F32", []int64{2, 2}, make([]byte, 16)}}, map[string]string{"format": "np"}))
	f.Add(rawFile(`{"a":{"dtype":"F16","shape":[1,3],"data_offsets":[0,6]},"b":{"dtype":"I8","shape":[],"data_offsets":[6,7]}}`, make([]byte, 7)))
	f.Add(rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}`, nil))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, file []byte) {
		n, err := HeaderLen(file, int64(len(file)))
		if err != nil {
			return
		}
		dataLen := int64(len(file)) - 8 - n
		h, err := ParseHeader(file[8:8+n], dataLen)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error without ErrInvalid: %v", err)
			}
			return
		}
		for _, ti := range h.Sorted() {
			size, _ := DTypeSize(ti.DType)
			if ti.Begin < 0 || ti.End > dataLen || ti.Begin > ti.End || uint64(ti.End-ti.Begin) != uint64(ti.Elems())*size {
				t.Fatalf("accepted bad tensor %+v (data %d bytes)", ti, dataLen)
			}
		}
	})
}
