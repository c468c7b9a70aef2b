package onnxgen

import (
	"encoding/binary"
	"math"
	"strconv"
)

// pb is a protocol-buffers message being written: just enough of the
// wire format (varints, length-delimited fields, fixed32) for ONNX's
// ModelProto.
type pb []byte

func (b pb) varint(v uint64) pb {
	return binary.AppendUvarint(b, v)
}

func (b pb) tag(field, wire int) pb { return b.varint(uint64(field<<3 | wire)) }

// int writes a varint field (int32, int64 and enums alike).
func (b pb) int(field int, v int64) pb { return b.tag(field, 0).varint(uint64(v)) }

// bytes writes a length-delimited field: a string, bytes or a message.
func (b pb) bytes(field int, v []byte) pb {
	return append(b.tag(field, 2).varint(uint64(len(v))), v...)
}

func (b pb) str(field int, s string) pb { return b.bytes(field, []byte(s)) }

func (b pb) float(field int, f float32) pb {
	return binary.LittleEndian.AppendUint32(b.tag(field, 5), math.Float32bits(f))
}

// ints writes a packed repeated int64 field.
func (b pb) ints(field int, v []int64) pb {
	var p pb
	for _, x := range v {
		p = p.varint(uint64(x))
	}
	return b.bytes(field, p)
}

// ONNX enum values used here.
const (
	dtFloat = 1 // TensorProto.FLOAT
	dtInt64 = 7 // TensorProto.INT64

	attrFloat = 1 // AttributeProto.FLOAT
	attrInt   = 2
	attrInts  = 7
)

// attr is one node attribute.
type attr struct {
	name string
	kind int
	f    float32
	i    int64
	ints []int64
}

func (a attr) encode() pb {
	b := pb(nil).str(1, a.name).int(20, int64(a.kind))
	switch a.kind {
	case attrFloat:
		b = b.float(2, a.f)
	case attrInt:
		b = b.int(3, a.i)
	case attrInts:
		b = b.ints(8, a.ints)
	}
	return b
}

func intAttr(name string, v int64) attr     { return attr{name: name, kind: attrInt, i: v} }
func floatAttr(name string, v float32) attr { return attr{name: name, kind: attrFloat, f: v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, kind: attrInts, ints: v} }

// node is a NodeProto.
type node struct {
	op      string
	inputs  []string
	outputs []string
	attrs   []attr
}

func (n node) encode(name string) pb {
	var b pb
	for _, in := range n.inputs {
		b = b.str(1, in)
	}
	for _, out := range n.outputs {
		b = b.str(2, out)
	}
	b = b.str(3, name).str(4, n.op)
	for _, a := range n.attrs {
		b = b.bytes(5, a.encode())
	}
	return b
}

// tensor is an initializer: float32 or int64 data with its dims.
type tensor struct {
	name string
	dims []int64
	f32  []float32
	i64  []int64
}

func (t tensor) encode() pb {
	var b pb
	if len(t.dims) > 0 { // a scalar has no dims
		b = b.ints(1, t.dims)
	}
	raw := make([]byte, 0, 4*len(t.f32)+8*len(t.i64))
	if t.i64 != nil {
		b = b.int(2, dtInt64)
		for _, x := range t.i64 {
			raw = binary.LittleEndian.AppendUint64(raw, uint64(x))
		}
	} else {
		b = b.int(2, dtFloat)
		for _, x := range t.f32 {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
		}
	}
	return b.str(8, t.name).bytes(9, raw)
}

// valueInfo is a graph input or output: a tensor of elemType; a dim is
// a number (dim_value) or a name (dim_param, symbolic).
func valueInfo(name string, elemType int64, dims ...string) pb {
	var shape pb
	for _, d := range dims {
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			shape = shape.bytes(1, pb(nil).int(1, n))
		} else {
			shape = shape.bytes(1, pb(nil).str(2, d))
		}
	}
	tt := pb(nil).int(1, elemType).bytes(2, shape)
	return pb(nil).str(1, name).bytes(2, pb(nil).bytes(1, tt))
}
