// Package safetensors reads the header of a safetensors file (the tensor
// format of Hugging Face checkpoints) and checks it against the file, and
// decodes tensor data to float32. model2vec reads its embedding tables
// with it, onnxgen the weights of BERT checkpoints.
package safetensors

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"sort"
)

// ErrInvalid marks a safetensors file that is malformed.
var ErrInvalid = errors.New("invalid safetensors file")

// MaxHeaderLen bounds the JSON header so that a corrupt length prefix
// cannot make a reader allocate gigabytes.
const MaxHeaderLen = 100 << 20

// DTypeSize gives the element size in bytes of every safetensors dtype.
func DTypeSize(dtype string) (uint64, bool) {
	switch dtype {
	case "BOOL", "U8", "I8", "F8_E4M3", "F8_E5M2":
		return 1, true
	case "U16", "I16", "F16", "BF16":
		return 2, true
	case "U32", "I32", "F32":
		return 4, true
	case "U64", "I64", "F64":
		return 8, true
	}
	return 0, false
}

// TensorInfo describes one tensor of a safetensors file.
type TensorInfo struct {
	Name  string
	DType string
	Shape []int64
	// Begin and End are byte offsets relative to the start of the data
	// section, which follows the header.
	Begin, End int64
}

// Elems is the number of elements of the tensor.
func (t TensorInfo) Elems() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Header is a parsed safetensors header.
type Header struct {
	Tensors  map[string]TensorInfo
	Metadata map[string]string
	// DataStart is the absolute file offset of the data section.
	DataStart int64
}

// Sorted returns the tensors ordered by their position in the file.
func (h *Header) Sorted() []TensorInfo {
	out := make([]TensorInfo, 0, len(h.Tensors))
	for _, t := range h.Tensors {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Begin != out[j].Begin {
			return out[i].Begin < out[j].Begin
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// HeaderLen decodes the 8-byte little-endian length prefix and checks it
// against the file size.
func HeaderLen(prefix []byte, fileSize int64) (int64, error) {
	if len(prefix) < 8 || fileSize < 8 {
		return 0, fmt.Errorf("%w: file too short for the 8-byte header length", ErrInvalid)
	}
	n := binary.LittleEndian.Uint64(prefix)
	if n < 2 {
		return 0, fmt.Errorf("%w: header length %d is too small", ErrInvalid, n)
	}
	if n > MaxHeaderLen {
		return 0, fmt.Errorf("%w: header length %d exceeds the %d-byte limit", ErrInvalid, n, MaxHeaderLen)
	}
	if n > uint64(fileSize-8) {
		return 0, fmt.Errorf("%w: header length %d runs past the end of the %d-byte file (truncated?)", ErrInvalid, n, fileSize)
	}
	return int64(n), nil
}

// ReadHeader reads the length prefix and the header from r, the start of
// a file of fileSize bytes, and parses it (see ParseHeader).
func ReadHeader(r io.Reader, fileSize int64) (*Header, error) {
	var prefix [8]byte
	if _, err := io.ReadFull(r, prefix[:]); err != nil {
		return nil, fmt.Errorf("%w: file too short for the header length", ErrInvalid)
	}
	n, err := HeaderLen(prefix[:], fileSize)
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("%w: reading header: %v", ErrInvalid, err)
	}
	h, err := ParseHeader(hdr, fileSize-8-n)
	if err != nil {
		return nil, err
	}
	h.DataStart = 8 + n
	return h, nil
}

// rawTensor is a header entry as written in the JSON.
type rawTensor struct {
	DType       string   `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

// ParseHeader parses and validates the JSON header. dataLen is the size of
// the data section (file size - 8 - header length); every tensor must lie
// inside it, have the size its dtype and shape imply, and not overlap
// another tensor.
func ParseHeader(hdr []byte, dataLen int64) (*Header, error) {
	hdr = bytes.TrimRight(hdr, " ") // the format allows trailing spaces as padding
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, fmt.Errorf("%w: header is not a JSON object", ErrInvalid)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &entries); err != nil {
		return nil, fmt.Errorf("%w: header JSON: %v", ErrInvalid, err)
	}
	h := &Header{Tensors: make(map[string]TensorInfo, len(entries))}
	for name, raw := range entries {
		if name == "__metadata__" {
			if err := json.Unmarshal(raw, &h.Metadata); err != nil {
				return nil, fmt.Errorf("%w: __metadata__ must map strings to strings: %v", ErrInvalid, err)
			}
			continue
		}
		t, err := parseTensor(name, raw, dataLen)
		if err != nil {
			return nil, err
		}
		h.Tensors[name] = t
	}
	ts := h.Sorted()
	for i := 1; i < len(ts); i++ {
		if ts[i].Begin < ts[i-1].End {
			return nil, fmt.Errorf("%w: tensors %q and %q overlap", ErrInvalid, ts[i-1].Name, ts[i].Name)
		}
	}
	return h, nil
}

// parseTensor validates one header entry.
func parseTensor(name string, raw json.RawMessage, dataLen int64) (TensorInfo, error) {
	var rt rawTensor
	if err := json.Unmarshal(raw, &rt); err != nil {
		return TensorInfo{}, fmt.Errorf("%w: tensor %q: %v", ErrInvalid, name, err)
	}
	size, ok := DTypeSize(rt.DType)
	if !ok {
		return TensorInfo{}, fmt.Errorf("%w: tensor %q: unknown dtype %q", ErrInvalid, name, rt.DType)
	}
	if len(rt.DataOffsets) != 2 {
		return TensorInfo{}, fmt.Errorf("%w: tensor %q: data_offsets must hold 2 numbers, not %d", ErrInvalid, name, len(rt.DataOffsets))
	}
	begin, end := rt.DataOffsets[0], rt.DataOffsets[1]
	if begin > end || end > uint64(dataLen) {
		return TensorInfo{}, fmt.Errorf("%w: tensor %q: data_offsets [%d, %d] outside the %d-byte data section", ErrInvalid, name, begin, end, dataLen)
	}
	n := uint64(1)
	for _, d := range rt.Shape {
		if d < 0 {
			return TensorInfo{}, fmt.Errorf("%w: tensor %q: negative dimension in shape %v", ErrInvalid, name, rt.Shape)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			return TensorInfo{}, fmt.Errorf("%w: tensor %q: shape %v overflows", ErrInvalid, name, rt.Shape)
		}
		n = lo
	}
	hi, want := bits.Mul64(n, size)
	if hi != 0 || want != end-begin {
		return TensorInfo{}, fmt.Errorf("%w: tensor %q: shape %v of %s needs %d bytes, data_offsets give %d", ErrInvalid, name, rt.Shape, rt.DType, want, end-begin)
	}
	return TensorInfo{Name: name, DType: rt.DType, Shape: rt.Shape, Begin: int64(begin), End: int64(end)}, nil
}

// IsFloat reports whether DecodeFloats decodes dtype.
func IsFloat(dtype string) bool {
	switch dtype {
	case "F32", "F16", "BF16", "F64":
		return true
	}
	return false
}

// DecodeFloats converts little-endian elements of a float dtype (see
// IsFloat) to float32; src holds len(dst) elements. An F64 value beyond
// float32's range becomes infinite.
func DecodeFloats(dst []float32, src []byte, dtype string) {
	le := binary.LittleEndian
	switch dtype {
	case "F32":
		for i := range dst {
			dst[i] = math.Float32frombits(le.Uint32(src[4*i:]))
		}
	case "F16":
		for i := range dst {
			dst[i] = F16ToF32(le.Uint16(src[2*i:]))
		}
	case "BF16":
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(le.Uint16(src[2*i:])) << 16)
		}
	case "F64":
		for i := range dst {
			dst[i] = float32(math.Float64frombits(le.Uint64(src[8*i:])))
		}
	}
}

// File is an open safetensors file whose header has been checked.
type File struct {
	Header
	f    *os.File
	path string
}

// Open opens path and checks its header strictly: besides what
// ParseHeader checks, the tensors must fill the data section exactly, as
// the format requires, so a file truncated or padded after its header
// was written is refused.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	h, err := ReadHeader(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	covered, dataLen := int64(0), st.Size()-h.DataStart
	for _, t := range h.Sorted() {
		if t.Begin != covered {
			fh.Close()
			return nil, fmt.Errorf("%s: %w: %d unused bytes before tensor %q", path, ErrInvalid, t.Begin-covered, t.Name)
		}
		covered = t.End
	}
	if covered != dataLen {
		fh.Close()
		return nil, fmt.Errorf("%s: %w: the tensors end at byte %d of the %d-byte data section", path, ErrInvalid, covered, dataLen)
	}
	return &File{Header: *h, f: fh, path: path}, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Floats reads the tensor name, which must have a float dtype, as float32;
// every value must be finite.
func (f *File) Floats(ctx context.Context, name string) ([]float32, error) {
	t, ok := f.Tensors[name]
	if !ok {
		return nil, fmt.Errorf("%s: no tensor %q", f.path, name)
	}
	if !IsFloat(t.DType) {
		return nil, fmt.Errorf("%s: tensor %q has dtype %s, want a float (F32, F16, BF16, F64)", f.path, name, t.DType)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	raw := make([]byte, t.End-t.Begin)
	if _, err := f.f.ReadAt(raw, f.DataStart+t.Begin); err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", f.path, name, err)
	}
	out := make([]float32, t.Elems())
	DecodeFloats(out, raw, t.DType)
	for i, x := range out {
		if math.IsInf(float64(x), 0) || x != x {
			return nil, fmt.Errorf("%s: %w: tensor %q: element %d is %v", f.path, ErrInvalid, name, i, x)
		}
	}
	return out, nil
}

// Tensor is a tensor for Encode.
type Tensor struct {
	Name  string
	DType string
	Shape []int64
	Data  []byte
}

// Encode serialises tensors, in the given order, with the header padded
// to 8 bytes as the reference writer does. It writes fixtures and small
// checkpoints; it does not check that Data fits DType and Shape.
func Encode(ts []Tensor, metadata map[string]string) []byte {
	hdr := map[string]any{}
	if metadata != nil {
		hdr["__metadata__"] = metadata
	}
	var data []byte
	for _, t := range ts {
		hdr[t.Name] = map[string]any{"dtype": t.DType, "shape": t.Shape, "data_offsets": []int{len(data), len(data) + len(t.Data)}}
		data = append(data, t.Data...)
	}
	js, _ := json.Marshal(hdr)
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	return append(append(out, js...), data...)
}

// F32Bytes encodes float32s little-endian (an F32 tensor's data).
func F32Bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}
