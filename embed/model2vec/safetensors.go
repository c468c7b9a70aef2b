package model2vec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"sort"
)

// ErrSafetensors marks a model.safetensors file that is malformed.
var ErrSafetensors = errors.New("invalid safetensors file")

// maxHeaderLen bounds the JSON header so that a corrupt length prefix cannot
// make the loader allocate gigabytes.
const maxHeaderLen = 100 << 20

// dtypeSize gives the element size in bytes of every safetensors dtype.
// Only some of them can be decoded (see isFloatDType and isIntDType).
func dtypeSize(dtype string) (uint64, bool) {
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

// tensorInfo describes one tensor of a safetensors file.
type tensorInfo struct {
	Name  string
	DType string
	Shape []int64
	// Begin and End are byte offsets relative to the start of the data
	// section, which follows the header.
	Begin, End int64
}

// elems is the number of elements of the tensor.
func (t tensorInfo) elems() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// stHeader is a parsed safetensors header.
type stHeader struct {
	Tensors  map[string]tensorInfo
	Metadata map[string]string
	// DataStart is the absolute file offset of the data section.
	DataStart int64
}

// sorted returns the tensors ordered by their position in the file.
func (h *stHeader) sorted() []tensorInfo {
	out := make([]tensorInfo, 0, len(h.Tensors))
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

// headerLen decodes the 8-byte little-endian length prefix and checks it
// against the file size.
func headerLen(prefix []byte, fileSize int64) (int64, error) {
	if len(prefix) < 8 || fileSize < 8 {
		return 0, fmt.Errorf("%w: file too short for the 8-byte header length", ErrSafetensors)
	}
	n := binary.LittleEndian.Uint64(prefix)
	if n < 2 {
		return 0, fmt.Errorf("%w: header length %d is too small", ErrSafetensors, n)
	}
	if n > maxHeaderLen {
		return 0, fmt.Errorf("%w: header length %d exceeds the %d-byte limit", ErrSafetensors, n, maxHeaderLen)
	}
	if n > uint64(fileSize-8) {
		return 0, fmt.Errorf("%w: header length %d runs past the end of the %d-byte file (truncated?)", ErrSafetensors, n, fileSize)
	}
	return int64(n), nil
}

// rawTensor is a header entry as written in the JSON.
type rawTensor struct {
	DType       string   `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"`
}

// parseHeader parses and validates the JSON header. dataLen is the size of
// the data section (file size - 8 - header length); every tensor must lie
// inside it, have the size its dtype and shape imply, and not overlap
// another tensor.
func parseHeader(hdr []byte, dataLen int64) (*stHeader, error) {
	hdr = bytes.TrimRight(hdr, " ") // the format allows trailing spaces as padding
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, fmt.Errorf("%w: header is not a JSON object", ErrSafetensors)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &entries); err != nil {
		return nil, fmt.Errorf("%w: header JSON: %v", ErrSafetensors, err)
	}
	h := &stHeader{Tensors: make(map[string]tensorInfo, len(entries))}
	for name, raw := range entries {
		if name == "__metadata__" {
			if err := json.Unmarshal(raw, &h.Metadata); err != nil {
				return nil, fmt.Errorf("%w: __metadata__ must map strings to strings: %v", ErrSafetensors, err)
			}
			continue
		}
		t, err := parseTensor(name, raw, dataLen)
		if err != nil {
			return nil, err
		}
		h.Tensors[name] = t
	}
	// Tensors must not overlap.
	ts := h.sorted()
	for i := 1; i < len(ts); i++ {
		if ts[i].Begin < ts[i-1].End {
			return nil, fmt.Errorf("%w: tensors %q and %q overlap", ErrSafetensors, ts[i-1].Name, ts[i].Name)
		}
	}
	return h, nil
}

// parseTensor validates one header entry.
func parseTensor(name string, raw json.RawMessage, dataLen int64) (tensorInfo, error) {
	var rt rawTensor
	if err := json.Unmarshal(raw, &rt); err != nil {
		return tensorInfo{}, fmt.Errorf("%w: tensor %q: %v", ErrSafetensors, name, err)
	}
	size, ok := dtypeSize(rt.DType)
	if !ok {
		return tensorInfo{}, fmt.Errorf("%w: tensor %q: unknown dtype %q", ErrSafetensors, name, rt.DType)
	}
	if len(rt.DataOffsets) != 2 {
		return tensorInfo{}, fmt.Errorf("%w: tensor %q: data_offsets must hold 2 numbers, not %d", ErrSafetensors, name, len(rt.DataOffsets))
	}
	begin, end := rt.DataOffsets[0], rt.DataOffsets[1]
	if begin > end || end > uint64(dataLen) {
		return tensorInfo{}, fmt.Errorf("%w: tensor %q: data_offsets [%d, %d] outside the %d-byte data section", ErrSafetensors, name, begin, end, dataLen)
	}
	n := uint64(1)
	for _, d := range rt.Shape {
		if d < 0 {
			return tensorInfo{}, fmt.Errorf("%w: tensor %q: negative dimension in shape %v", ErrSafetensors, name, rt.Shape)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			return tensorInfo{}, fmt.Errorf("%w: tensor %q: shape %v overflows", ErrSafetensors, name, rt.Shape)
		}
		n = lo
	}
	hi, want := bits.Mul64(n, size)
	if hi != 0 || want != end-begin {
		return tensorInfo{}, fmt.Errorf("%w: tensor %q: shape %v of %s needs %d bytes, data_offsets give %d", ErrSafetensors, name, rt.Shape, rt.DType, want, end-begin)
	}
	return tensorInfo{Name: name, DType: rt.DType, Shape: rt.Shape, Begin: int64(begin), End: int64(end)}, nil
}
