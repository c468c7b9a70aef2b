package model2vec

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/enquire-mcp/enquire-mcp/embed/safetensors"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer"
)

// ErrSafetensors marks a model.safetensors file that is malformed.
var ErrSafetensors = safetensors.ErrInvalid

// ErrUnsupported marks a model that uses a feature this package does not
// implement (a dtype, a tokenizer model, a normalizer...).
var ErrUnsupported = tokenizer.ErrUnsupported

// embeddingNames are the names model2vec and sentence-transformers give
// the embedding table, in order of preference.
var embeddingNames = [...]string{"embeddings", "embedding.weight", "0"}

// tensors holds what the model needs from model.safetensors, decoded to
// native types.
type tensors struct {
	emb       []float32 // rows × dim, row-major
	rows, dim int
	weights   []float32 // per token id, or nil
	mapping   []int32   // token id → row, or nil
	sha256    string    // hex digest of the whole file
}

// readTensorFile reads model.safetensors in one sequential pass, hashing
// every byte and decoding only the tensors the model uses, so memory stays
// at the size of the decoded tables.
func readTensorFile(ctx context.Context, path string) (*tensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open model file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat model file: %w", err)
	}
	h := sha256.New()
	r := &countingReader{r: io.TeeReader(bufio.NewReaderSize(f, 1<<20), h)}

	hdr, err := safetensors.ReadHeader(r, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	t := &tensors{}
	wanted, err := t.plan(hdr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pos := int64(0)
	buf := make([]byte, 1<<20)
	for _, ti := range hdr.Sorted() {
		dst, ok := wanted[ti.Name]
		if !ok {
			continue
		}
		if _, err := io.CopyN(io.Discard, r, ti.Begin-pos); err != nil {
			return nil, fmt.Errorf("%s: reading data: %w", path, err)
		}
		if err := readTensor(ctx, r, ti, dst, buf); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", path, ti.Name, err)
		}
		pos = ti.End
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return nil, fmt.Errorf("%s: reading data: %w", path, err)
	}
	if r.n != st.Size() {
		return nil, fmt.Errorf("%s: file changed while reading (%d bytes read, %d expected)", path, r.n, st.Size())
	}
	t.sha256 = hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// plan picks the tensors to decode, checks their shapes and allocates
// their destinations. The map values are *[]float32 or *[]int32.
func (t *tensors) plan(h *safetensors.Header) (map[string]any, error) {
	var emb safetensors.TensorInfo
	found := false
	for _, name := range embeddingNames {
		if ti, ok := h.Tensors[name]; ok {
			emb, found = ti, true
			break
		}
	}
	if !found {
		names := make([]string, 0, len(h.Tensors))
		for _, ti := range h.Sorted() {
			names = append(names, ti.Name)
		}
		return nil, fmt.Errorf("%w: no embedding tensor (looked for %q, file has %q)", ErrSafetensors, embeddingNames[:], names)
	}
	if len(emb.Shape) != 2 || emb.Shape[0] == 0 || emb.Shape[1] == 0 {
		return nil, fmt.Errorf("%w: embedding tensor %q has shape %v, want [tokens, dim]", ErrSafetensors, emb.Name, emb.Shape)
	}
	if !isFloatDType(emb.DType) {
		return nil, fmt.Errorf("%w: embedding dtype %s (supported: F32, F16, BF16, F64, I8)", ErrUnsupported, emb.DType)
	}
	t.rows, t.dim = int(emb.Shape[0]), int(emb.Shape[1])
	t.emb = make([]float32, emb.Elems())
	wanted := map[string]any{emb.Name: &t.emb}
	if w, ok := h.Tensors["weights"]; ok {
		if !isFloatDType(w.DType) || !isVector(w.Shape) {
			return nil, fmt.Errorf("%w: weights tensor is %s %v, want a float vector", ErrUnsupported, w.DType, w.Shape)
		}
		t.weights = make([]float32, w.Elems())
		wanted[w.Name] = &t.weights
	}
	if m, ok := h.Tensors["mapping"]; ok {
		if !isIntDType(m.DType) || !isVector(m.Shape) {
			return nil, fmt.Errorf("%w: mapping tensor is %s %v, want an integer vector", ErrUnsupported, m.DType, m.Shape)
		}
		t.mapping = make([]int32, m.Elems())
		wanted[m.Name] = &t.mapping
	}
	return wanted, nil
}

// isVector reports whether shape is [n] or [n, 1].
func isVector(shape []int64) bool {
	return len(shape) == 1 || (len(shape) == 2 && shape[1] == 1)
}

// isFloatDType reports whether decodeFloats handles dtype. I8 is read as
// its integer value: model2vec's int8 quantisation does not store its
// scale, because one global scale cancels in the L2-normalised mean.
func isFloatDType(dtype string) bool {
	switch dtype {
	case "F32", "F16", "BF16", "F64", "I8":
		return true
	}
	return false
}

// isIntDType reports whether decodeInts handles dtype.
func isIntDType(dtype string) bool {
	switch dtype {
	case "I8", "U8", "I16", "U16", "I32", "U32", "I64", "U64":
		return true
	}
	return false
}

// readTensor streams one tensor into dst through buf. Float tensors must
// be finite.
func readTensor(ctx context.Context, r io.Reader, ti safetensors.TensorInfo, dst any, buf []byte) error {
	sz, _ := safetensors.DTypeSize(ti.DType)
	size := int(sz)
	buf = buf[:len(buf)/size*size]
	remaining := ti.End - ti.Begin
	off := 0
	for remaining > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := int(min(remaining, int64(len(buf))))
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return fmt.Errorf("reading data: %w", err)
		}
		k := n / size
		switch d := dst.(type) {
		case *[]float32:
			chunk := (*d)[off : off+k]
			decodeFloats(chunk, buf[:n], ti.DType)
			if i := firstNonFinite(chunk); i >= 0 {
				return fmt.Errorf("%w: element %d is %v; the table and weights must be finite", ErrSafetensors, off+i, chunk[i])
			}
		case *[]int32:
			if err := decodeInts((*d)[off:off+k], buf[:n], ti.DType); err != nil {
				return err
			}
		}
		off += k
		remaining -= int64(n)
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or infinite value in
// v (an F64 value beyond float32's range decodes as infinite), or -1.
func firstNonFinite(v []float32) int {
	for i, x := range v {
		if math.IsInf(float64(x), 0) || x != x {
			return i
		}
	}
	return -1
}

// decodeFloats converts little-endian elements of a float dtype (see
// isFloatDType) to float32.
func decodeFloats(dst []float32, src []byte, dtype string) {
	if dtype != "I8" {
		safetensors.DecodeFloats(dst, src, dtype)
		return
	}
	for i := range dst {
		dst[i] = float32(int8(src[i]))
	}
}

// decodeInts converts little-endian integers to int32, failing on values
// that do not fit.
func decodeInts(dst []int32, src []byte, dtype string) error {
	le := binary.LittleEndian
	for i := range dst {
		var v int64
		switch dtype {
		case "I8":
			v = int64(int8(src[i]))
		case "U8":
			v = int64(src[i])
		case "I16":
			v = int64(int16(le.Uint16(src[2*i:])))
		case "U16":
			v = int64(le.Uint16(src[2*i:]))
		case "I32":
			v = int64(int32(le.Uint32(src[4*i:])))
		case "U32":
			v = int64(le.Uint32(src[4*i:]))
		case "I64":
			v = int64(le.Uint64(src[8*i:]))
		case "U64":
			u := le.Uint64(src[8*i:])
			if u > math.MaxInt32 {
				return fmt.Errorf("%w: value %d out of range", ErrSafetensors, u)
			}
			v = int64(u)
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("%w: value %d out of range", ErrSafetensors, v)
		}
		dst[i] = int32(v)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

// Read reads and counts.
func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
