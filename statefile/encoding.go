// Package statefile is the compact binary encoding of the engine's state file
// (see search.SaveState): varints, length-prefixed strings and raw floats,
// appended to a byte slice and read back with every length checked
// against the bytes left, so a truncated or damaged file is an error, not
// a panic or a huge allocation.
package statefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"
)

// Writer appends encoded values to Buf.
type Writer struct {
	Buf []byte
}

// Grow makes room for n more bytes. Large buffers grow by a quarter at a
// time, so an encoder that knows its size roughly says so first, rather
// than allocate several times what it writes.
func (w *Writer) Grow(n int) { w.Buf = slices.Grow(w.Buf, n) }

// Uint appends an unsigned varint.
func (w *Writer) Uint(v uint64) { w.Buf = binary.AppendUvarint(w.Buf, v) }

// Int appends a signed (zig-zag) varint.
func (w *Writer) Int(v int64) { w.Buf = binary.AppendVarint(w.Buf, v) }

// Len appends a length or count.
func (w *Writer) Len(n int) { w.Uint(uint64(n)) }

// Bool appends one byte.
func (w *Writer) Bool(b bool) {
	if b {
		w.Buf = append(w.Buf, 1)
	} else {
		w.Buf = append(w.Buf, 0)
	}
}

// Text appends a length-prefixed string.
func (w *Writer) Text(s string) {
	w.Len(len(s))
	w.Buf = append(w.Buf, s...)
}

// Strings appends a counted list of strings.
func (w *Writer) Strings(ss []string) {
	w.Len(len(ss))
	for _, s := range ss {
		w.Text(s)
	}
}

// Float32 appends the IEEE bits, little-endian.
func (w *Writer) Float32(f float32) {
	w.Buf = binary.LittleEndian.AppendUint32(w.Buf, math.Float32bits(f))
}

// Float64 appends the IEEE bits, little-endian.
func (w *Writer) Float64(f float64) {
	w.Buf = binary.LittleEndian.AppendUint64(w.Buf, math.Float64bits(f))
}

// Time appends t as Unix nanoseconds; the monotonic reading and the
// location are dropped (file times carry neither).
func (w *Writer) Time(t time.Time) { w.Int(t.UnixNano()) }

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = errors.New("state data damaged or truncated")

// Reader decodes what a Writer wrote. The first error sticks: later reads
// return zero values, and Err reports it.
type Reader struct {
	buf []byte
	off int
	err error
}

// NewReader reads b. Decoded strings share b's memory (a state file is
// mostly note text: copying it would double the memory a start needs),
// so b must never be modified afterwards.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Err is the first decoding error, nil when every read succeeded.
func (r *Reader) Err() error { return r.err }

// Done reports an error unless every byte was read.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.buf) {
		r.fail("%d bytes left over", len(r.buf)-r.off)
	}
	return r.err
}

func (r *Reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: at byte %d: %s", ErrCorrupt, r.off, fmt.Sprintf(format, args...))
		r.off = len(r.buf)
	}
}

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.off += n
	return v
}

// Int reads a signed varint.
func (r *Reader) Int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf[r.off:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.off += n
	return v
}

// Len reads a count of items that each take at least min bytes; a count
// the remaining bytes cannot hold is an error (so no damaged count makes
// a huge allocation).
func (r *Reader) Len(min int) int {
	v := r.Uint()
	min = max(min, 1)
	if v > uint64((len(r.buf)-r.off)/min) {
		r.fail("count %d exceeds the data left", v)
		return 0
	}
	return int(v)
}

// Bool reads one byte.
func (r *Reader) Bool() bool {
	if r.err != nil {
		return false
	}
	if r.off >= len(r.buf) || r.buf[r.off] > 1 {
		r.fail("bad bool")
		return false
	}
	r.off++
	return r.buf[r.off-1] == 1
}

// Text reads a length-prefixed string, sharing the buffer's memory.
func (r *Reader) Text() string {
	n := r.Len(1)
	if r.err != nil || n == 0 {
		return ""
	}
	s := unsafe.String(&r.buf[r.off], n)
	r.off += n
	return s
}

// Fixed reads n bytes as a string, sharing the buffer's memory without
// reading it (a length written elsewhere, see Writer.Len).
func (r *Reader) Fixed(n int) string {
	if r.err != nil || n == 0 {
		return ""
	}
	if n < 0 || n > len(r.buf)-r.off {
		r.fail("string of %d bytes, %d left", n, len(r.buf)-r.off)
		return ""
	}
	s := unsafe.String(&r.buf[r.off], n)
	r.off += n
	return s
}

// Strings reads a counted list of strings (nil when empty).
func (r *Reader) Strings() []string {
	n := r.Len(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.Text()
	}
	return out
}

// Float32 reads IEEE bits.
func (r *Reader) Float32() float32 {
	if r.err != nil {
		return 0
	}
	if len(r.buf)-r.off < 4 {
		r.fail("short float32")
		return 0
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(r.buf[r.off:]))
	r.off += 4
	return v
}

// Float64 reads IEEE bits.
func (r *Reader) Float64() float64 {
	if r.err != nil {
		return 0
	}
	if len(r.buf)-r.off < 8 {
		r.fail("short float64")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.buf[r.off:]))
	r.off += 8
	return v
}

// Time reads Unix nanoseconds as a local time.
func (r *Reader) Time() time.Time { return time.Unix(0, r.Int()) }

// Index reads a non-negative int below limit (an id into a table of that
// size).
func (r *Reader) Index(limit int) int {
	v := r.Uint()
	if v >= uint64(limit) {
		r.fail("index %d out of range %d", v, limit)
		return 0
	}
	return int(v)
}

// Check fails the reader with msg unless ok (a decoded value broke an
// invariant).
func (r *Reader) Check(ok bool, msg string) {
	if !ok {
		r.fail("%s", msg)
	}
}

// Bytes reads a length-prefixed byte string, sharing the buffer.
func (r *Reader) Bytes() []byte {
	n := r.Len(1)
	if r.err != nil {
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Nat reads a non-negative int written with Writer.Len (a value, not a
// count: it is not bounded by the bytes left).
func (r *Reader) Nat() int {
	v := r.Uint()
	if v > math.MaxInt32 {
		r.fail("value %d out of range", v)
		return 0
	}
	return int(v)
}

// Pad appends zero bytes (after a byte that counts them) until the
// buffer's length is a multiple of align (at most 255), so that fixed-width
// records written next can be read in place (see [Reader.Pad]).
func (w *Writer) Pad(align int) { w.padAt(align, 0) }

// padAt is Pad for a buffer that continues a stream of which off bytes
// were written before it.
func (w *Writer) padAt(align, off int) {
	k := (align - (off+len(w.Buf)+1)%align) % align
	w.Buf = append(w.Buf, byte(k))
	w.Buf = append(w.Buf, make([]byte, k)...)
}

// Section appends a length-prefixed byte string that starts at a multiple
// of 8 bytes into the buffer.
func (w *Writer) Section(b []byte) {
	w.SectionHead(len(b), 0)
	w.Buf = append(w.Buf, b...)
}

// SectionHead appends what Section writes before a section's size bytes,
// for a stream of which off bytes were written before w's buffer: the
// caller then writes the section itself, without copying it into w.
func (w *Writer) SectionHead(size, off int) {
	w.Len(size)
	w.padAt(8, off)
}

// Pad skips what Writer.Pad wrote: a count below align, then that many
// zero bytes.
func (r *Reader) Pad(align int) {
	if r.err != nil {
		return
	}
	if r.off >= len(r.buf) || int(r.buf[r.off]) >= align {
		r.fail("bad padding")
		return
	}
	k := int(r.buf[r.off])
	r.off++
	for range k {
		if r.off >= len(r.buf) || r.buf[r.off] != 0 {
			r.fail("bad padding")
			return
		}
		r.off++
	}
}

// Section reads what Writer.Section wrote, sharing the buffer.
func (r *Reader) Section() []byte {
	n := r.Len(1)
	r.Pad(8)
	return r.Raw(n)
}

// Raw reads n bytes, sharing the buffer (nil when n is 0 or on error).
func (r *Reader) Raw(n int) []byte {
	if r.err != nil || n == 0 {
		return nil
	}
	if n < 0 || n > len(r.buf)-r.off {
		r.fail("%d bytes wanted, %d left", n, len(r.buf)-r.off)
		return nil
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}
