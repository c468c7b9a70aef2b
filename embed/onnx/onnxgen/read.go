package onnxgen

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// FromONNX reads the weights of an embedding model whose ONNX graph this
// package wrote (install-model converts checkpoints so): the graph's
// initializers, by the names encode gives them, with config.json's
// shape and layer_norm_eps. The result has no ONNX bytes. A graph
// exported elsewhere names its weights otherwise; that is an error
// wrapping ErrCheckpoint that says so.
func FromONNX(ctx context.Context, dir, onnxPath string) (*Model, error) {
	c, err := ReadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(onnxPath)
	if err != nil {
		return nil, fmt.Errorf("onnxgen: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("onnxgen: %w", err)
	}
	inits, err := initializers(fh, st.Size())
	if err != nil {
		return nil, fmt.Errorf("onnxgen: %s: %w: %v", onnxPath, ErrCheckpoint, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("onnxgen: %s: %w: %s", onnxPath, ErrCheckpoint, fmt.Sprintf(format, a...))
	}
	h, in := int64(c.Hidden), int64(c.Intermediate)
	for _, t := range []struct {
		name string
		dst  *int
	}{{"pos", &c.MaxPositions}, {"type", &c.TypeVocab}} {
		ti, ok := inits[t.name]
		if !ok || len(ti.dims) != 2 || ti.dims[0] <= 0 {
			return nil, bad("no initializer %q of 2 dimensions: not a graph install-model wrote (the pure-Go encoder also reads %s, if the folder has it)", t.name, WeightsFile)
		}
		*t.dst = int(ti.dims[0])
	}
	get := func(name string, dims ...int64) ([]float32, error) {
		ti, ok := inits[name]
		if !ok {
			return nil, bad("no initializer %q: not a graph install-model wrote (the pure-Go encoder also reads %s, if the folder has it)", name, WeightsFile)
		}
		if !slices.Equal(ti.dims, dims) {
			return nil, bad("initializer %q has shape %v, config.json implies %v", name, ti.dims, dims)
		}
		return ti.f32, nil
	}
	m := &Model{Config: c}
	var errs []error
	g := func(dst *[]float32, name string, dims ...int64) {
		v, err := get(name, dims...)
		*dst = v
		if err != nil {
			errs = append(errs, err)
		}
	}
	g(&m.word, "word", int64(c.Vocab), h)
	g(&m.pos, "pos", int64(c.MaxPositions), h)
	g(&m.typ, "type", int64(c.TypeVocab), h)
	g(&m.lng, "emb.ln.g", h)
	g(&m.lnb, "emb.ln.b", h)
	for i := range c.Layers {
		p := fmt.Sprintf("l%d.", i)
		var l layer
		g(&l.wq, p+"q.w", h, h)
		g(&l.bq, p+"q.b", h)
		g(&l.wk, p+"k.w", h, h)
		g(&l.bk, p+"k.b", h)
		g(&l.wv, p+"v.w", h, h)
		g(&l.bv, p+"v.b", h)
		g(&l.wo, p+"o.w", h, h)
		g(&l.bo, p+"o.b", h)
		g(&l.ln1g, p+"ln1.g", h)
		g(&l.ln1b, p+"ln1.b", h)
		g(&l.w1, p+"ff1.w", h, in)
		g(&l.b1, p+"ff1.b", in)
		g(&l.w2, p+"ff2.w", in, h)
		g(&l.b2, p+"ff2.b", h)
		g(&l.ln2g, p+"ln2.g", h)
		g(&l.ln2b, p+"ln2.b", h)
		m.layers = append(m.layers, l)
		if len(errs) > 0 {
			return nil, errs[0]
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if _, ok := inits[fmt.Sprintf("l%d.q.w", c.Layers)]; ok {
		return nil, bad("the graph has more layers than config.json's num_hidden_layers %d", c.Layers)
	}
	return m, nil
}

// initTensor is a float32 initializer.
type initTensor struct {
	dims []int64
	f32  []float32
}

// initializers reads the float32 initializers of a ModelProto (graph,
// field 7; initializer, field 5 of the graph), raw_data or float_data.
// It reads the file field by field and decodes each tensor's values
// straight into its float32 slice through a small buffer: the file's
// bytes, whole or a tensor at a time, would double the peak memory of a
// load (the word embeddings alone are 47 MB).
func initializers(r io.ReaderAt, size int64) (map[string]initTensor, error) {
	var gOff, gEnd int64 = -1, 0
	err := walkAt(r, 0, size, func(num, wire int, off, n int64, _ uint64) error {
		if num == 7 && wire == 2 {
			gOff, gEnd = off, off+n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if gOff < 0 {
		return nil, fmt.Errorf("no graph")
	}
	out := map[string]initTensor{}
	buf := make([]byte, 64<<10)
	err = walkAt(r, gOff, gEnd, func(num, wire int, off, n int64, _ uint64) error {
		if num != 5 || wire != 2 {
			return nil
		}
		name, t, err := tensorProto(r, off, off+n, buf)
		if err != nil || t.f32 == nil {
			return err
		}
		out[name] = t
		return nil
	})
	return out, err
}

// tensorProto decodes the TensorProto at [off, end) of r; t.f32 is nil
// unless it is float32. buf is scratch for the values' bytes.
func tensorProto(r io.ReaderAt, off, end int64, buf []byte) (name string, t initTensor, err error) {
	var dtype uint64
	var rawOff, rawN int64 = -1, 0
	err = walkAt(r, off, end, func(num, wire int, off, n int64, x uint64) error {
		switch {
		case num == 1 && wire == 0:
			t.dims = append(t.dims, int64(x))
		case num == 1 && wire == 2:
			b, err := readAt(r, off, n)
			if err != nil {
				return err
			}
			for len(b) > 0 {
				d, n := binary.Uvarint(b)
				if n <= 0 {
					return fmt.Errorf("bad dims")
				}
				t.dims, b = append(t.dims, int64(d)), b[n:]
			}
		case num == 2 && wire == 0:
			dtype = x
		case num == 8 && wire == 2:
			b, err := readAt(r, off, n)
			if err != nil {
				return err
			}
			name = string(b)
		case (num == 9 || num == 4) && wire == 2:
			// raw_data, or packed float_data: the same little-endian bytes
			rawOff, rawN = off, n
		}
		return nil
	})
	if err != nil || dtype != dtFloat {
		return name, initTensor{}, err
	}
	if rawN%4 != 0 {
		return "", initTensor{}, fmt.Errorf("initializer %q: %d bytes of float32", name, rawN)
	}
	n := int64(1)
	for _, d := range t.dims {
		n *= d
	}
	if n != rawN/4 {
		return "", initTensor{}, fmt.Errorf("initializer %q: shape %v but %d values", name, t.dims, rawN/4)
	}
	t.f32 = make([]float32, rawN/4)
	for i := int64(0); i < n; {
		b := buf[:min(int64(len(buf)), 4*(n-i))]
		if _, err := r.ReadAt(b, rawOff+4*i); err != nil {
			return "", initTensor{}, fmt.Errorf("initializer %q: %w", name, err)
		}
		for j := 0; j < len(b); j, i = j+4, i+1 {
			t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[j:]))
		}
	}
	return name, t, nil
}

// readAt reads the n bytes at off of r (a field's: small, names and
// dimensions).
func readAt(r io.ReaderAt, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// walkAt calls f for each field of the protocol-buffers message at
// [off, end) of r, reading only the field headers: f gets each field's number, wire type, for a length-delimited
// one where its bytes are, and for a varint its value.
func walkAt(r io.ReaderAt, off, end int64, f func(num, wire int, off, n int64, v uint64) error) error {
	var hdr [2 * binary.MaxVarintLen64]byte
	for off < end {
		h := hdr[:min(int64(len(hdr)), end-off)]
		if n, err := r.ReadAt(h, off); n < len(h) {
			return fmt.Errorf("read at %d: %v", off, err)
		}
		key, n := binary.Uvarint(h)
		if n <= 0 {
			return fmt.Errorf("truncated protobuf")
		}
		num, wire := int(key>>3), int(key&7)
		off += int64(n)
		h = h[n:]
		var size int64
		var v uint64
		switch wire {
		case 0:
			x, m := binary.Uvarint(h)
			if m <= 0 {
				return fmt.Errorf("truncated varint")
			}
			off += int64(m)
			v = x
		case 1:
			off += 8
		case 5:
			off += 4
		case 2:
			l, m := binary.Uvarint(h)
			if m <= 0 || l > uint64(end-off-int64(m)) {
				return fmt.Errorf("truncated field %d", num)
			}
			off += int64(m)
			size = int64(l)
		default:
			return fmt.Errorf("unsupported wire type %d", wire)
		}
		if off > end {
			return fmt.Errorf("truncated field %d", num)
		}
		if err := f(num, wire, off, size, v); err != nil {
			return err
		}
		off += size
	}
	return nil
}
