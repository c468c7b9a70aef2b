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
// It reads the file field by field and holds one initializer's bytes at
// a time: the whole file would double the peak memory of a load.
func initializers(r io.ReaderAt, size int64) (map[string]initTensor, error) {
	var gOff, gEnd int64 = -1, 0
	err := walkAt(r, 0, size, func(num, wire int, off, n int64) error {
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
	err = walkAt(r, gOff, gEnd, func(num, wire int, off, n int64) error {
		if num != 5 || wire != 2 {
			return nil
		}
		v := make([]byte, n)
		if _, err := r.ReadAt(v, off); err != nil {
			return err
		}
		name, t, err := tensorProto(v)
		if err != nil || t.f32 == nil {
			return err
		}
		out[name] = t
		return nil
	})
	return out, err
}

// tensorProto decodes a TensorProto; t.f32 is nil unless it is float32.
func tensorProto(v []byte) (name string, t initTensor, err error) {
	var dtype uint64
	var raw []byte
	err = walk(v, func(num, wire int, b []byte, x uint64) error {
		switch {
		case num == 1 && wire == 0:
			t.dims = append(t.dims, int64(x))
		case num == 1 && wire == 2:
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
			name = string(b)
		case num == 9 && wire == 2:
			raw = b
		case num == 4 && wire == 2:
			raw = b // packed float_data: the same little-endian bytes
		}
		return nil
	})
	if err != nil || dtype != dtFloat {
		return name, initTensor{}, err
	}
	if len(raw)%4 != 0 {
		return "", initTensor{}, fmt.Errorf("initializer %q: %d bytes of float32", name, len(raw))
	}
	n := int64(1)
	for _, d := range t.dims {
		n *= d
	}
	if n != int64(len(raw)/4) {
		return "", initTensor{}, fmt.Errorf("initializer %q: shape %v but %d values", name, t.dims, len(raw)/4)
	}
	t.f32 = make([]float32, len(raw)/4)
	for i := range t.f32 {
		t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return name, t, nil
}

// walkAt is walk over the bytes [off, end) of r, reading only the field
// headers: f gets each field's number, wire type, and for a
// length-delimited one where its bytes are.
func walkAt(r io.ReaderAt, off, end int64, f func(num, wire int, off, n int64) error) error {
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
		switch wire {
		case 0:
			_, m := binary.Uvarint(h)
			if m <= 0 {
				return fmt.Errorf("truncated varint")
			}
			off += int64(m)
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
		if err := f(num, wire, off, size); err != nil {
			return err
		}
		off += size
	}
	return nil
}

// walk calls f for each field of a protocol-buffers message: its number,
// wire type, bytes (length-delimited) or value (varint, fixed).
func walk(msg []byte, f func(num, wire int, b []byte, v uint64) error) error {
	for len(msg) > 0 {
		key, n := binary.Uvarint(msg)
		if n <= 0 {
			return fmt.Errorf("truncated protobuf")
		}
		msg = msg[n:]
		num, wire := int(key>>3), int(key&7)
		var b []byte
		var v uint64
		switch wire {
		case 0:
			v, n = binary.Uvarint(msg)
			if n <= 0 {
				return fmt.Errorf("truncated varint")
			}
			msg = msg[n:]
		case 1:
			if len(msg) < 8 {
				return fmt.Errorf("truncated fixed64")
			}
			v, msg = binary.LittleEndian.Uint64(msg), msg[8:]
		case 5:
			if len(msg) < 4 {
				return fmt.Errorf("truncated fixed32")
			}
			v, msg = uint64(binary.LittleEndian.Uint32(msg)), msg[4:]
		case 2:
			l, n := binary.Uvarint(msg)
			if n <= 0 || l > uint64(len(msg)-n) {
				return fmt.Errorf("truncated field %d", num)
			}
			b, msg = msg[n:n+int(l)], msg[n+int(l):]
		default:
			return fmt.Errorf("unsupported wire type %d", wire)
		}
		if err := f(num, wire, b, v); err != nil {
			return err
		}
	}
	return nil
}
