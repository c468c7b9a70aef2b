package onnxgen

import (
	"context"
	"encoding/binary"
	"fmt"
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
	data, err := os.ReadFile(onnxPath)
	if err != nil {
		return nil, fmt.Errorf("onnxgen: %w", err)
	}
	inits, err := initializers(data)
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
func initializers(model []byte) (map[string]initTensor, error) {
	graph, err := field(model, 7)
	if err != nil {
		return nil, err
	}
	if graph == nil {
		return nil, fmt.Errorf("no graph")
	}
	out := map[string]initTensor{}
	err = walk(graph, func(num int, wire int, v []byte, _ uint64) error {
		if num != 5 || wire != 2 {
			return nil
		}
		var t initTensor
		var name string
		var dtype uint64
		var raw []byte
		err := walk(v, func(num, wire int, b []byte, x uint64) error {
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
		if err != nil {
			return err
		}
		if dtype != dtFloat {
			return nil
		}
		if len(raw)%4 != 0 {
			return fmt.Errorf("initializer %q: %d bytes of float32", name, len(raw))
		}
		n := int64(1)
		for _, d := range t.dims {
			n *= d
		}
		if n != int64(len(raw)/4) {
			return fmt.Errorf("initializer %q: shape %v but %d values", name, t.dims, len(raw)/4)
		}
		t.f32 = make([]float32, len(raw)/4)
		for i := range t.f32 {
			t.f32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		out[name] = t
		return nil
	})
	return out, err
}

// field returns the last length-delimited field num of a message.
func field(msg []byte, num int) ([]byte, error) {
	var out []byte
	err := walk(msg, func(n, wire int, v []byte, _ uint64) error {
		if n == num && wire == 2 {
			out = v
		}
		return nil
	})
	return out, err
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
