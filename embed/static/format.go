package static

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// File format, all integers little-endian:
//
//	magic    8 bytes  "ENQSTAT\x00"
//	version  uint32   FormatVersion
//	dim      uint32
//	rows     uint32
//	flags    uint32   1: weights present, 2: component present
//	words    rows × (uvarint byte length, UTF-8 bytes)
//	scales   rows × float32
//	weights  rows × float32          (flag 1)
//	comp     dim × float32           (flag 2)
//	vectors  rows × dim × int8, row after row
//	crc      uint32   CRC-32C (Castagnoli) of every byte before it
const (
	magic       = "ENQSTAT\x00"
	headerSize  = len(magic) + 4*4
	flagWeights = 1
	flagComp    = 2
)

// FormatVersion is the version of the file format Encode writes and
// Decode reads.
const FormatVersion = 1

// maxDim bounds the header's dimension, so a corrupt header cannot make
// Decode attempt a huge allocation.
const maxDim = 1 << 16

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Vectors is the content of a static vectors file: a table, the word that
// names each row, and an optional common component (see
// [Options.RemoveComponent]).
type Vectors struct {
	// Words[r] is the token of row r.
	Words []string
	// Table holds the quantised rows.
	Table Table
	// Component is the common component to remove, or nil.
	Component []float32
}

// Encode writes v to w in the static vectors format. The output depends
// only on v, so equal inputs give byte-identical files.
func Encode(w io.Writer, v *Vectors) error {
	if err := v.validate(); err != nil {
		return fmt.Errorf("static: encode: %w", err)
	}
	t := &v.Table
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	var flags uint32
	if t.Weights != nil {
		flags |= flagWeights
	}
	if v.Component != nil {
		flags |= flagComp
	}
	hdr := make([]byte, 0, headerSize)
	hdr = append(hdr, magic...)
	for _, x := range []uint32{FormatVersion, uint32(t.Dim), uint32(t.Rows), flags} {
		hdr = binary.LittleEndian.AppendUint32(hdr, x)
	}
	bw.Write(hdr)
	var buf []byte
	for _, word := range v.Words {
		buf = binary.AppendUvarint(buf[:0], uint64(len(word)))
		bw.Write(buf)
		bw.WriteString(word)
	}
	writeFloats(bw, t.Scales)
	writeFloats(bw, t.Weights)
	writeFloats(bw, v.Component)
	for _, q := range t.Vectors {
		bw.WriteByte(byte(q))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("static: encode: %w", err)
	}
	if _, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32())); err != nil {
		return fmt.Errorf("static: encode: %w", err)
	}
	return nil
}

// writeFloats writes xs; errors surface at the final Flush (a
// bufio.Writer keeps the first one).
func writeFloats(bw *bufio.Writer, xs []float32) {
	var b [4]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		bw.Write(b[:])
	}
}

func (v *Vectors) validate() error {
	if err := v.Table.Validate(); err != nil {
		return err
	}
	if len(v.Words) != v.Table.Rows {
		return fmt.Errorf("%w: %d words for %d rows", ErrInvalid, len(v.Words), v.Table.Rows)
	}
	if v.Table.Dim > maxDim || v.Table.Rows > math.MaxUint32 {
		return fmt.Errorf("%w: dim %d, rows %d too large", ErrInvalid, v.Table.Dim, v.Table.Rows)
	}
	if v.Component != nil && len(v.Component) != v.Table.Dim {
		return fmt.Errorf("%w: component of dim %d for dim %d", ErrInvalid, len(v.Component), v.Table.Dim)
	}
	return nil
}

// Decode parses a static vectors file. data is a string so that a table
// embedded with //go:embed decodes without copying the file: the words
// are substrings of data; the numbers are copied out.
func Decode(data string) (*Vectors, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("static: decode: %w", err)
	}
	return v, nil
}

func decode(data string) (*Vectors, error) {
	if len(data) < headerSize+4 || data[:len(magic)] != magic {
		return nil, fmt.Errorf("%w: not a static vectors file", ErrInvalid)
	}
	body, sum := data[:len(data)-4], le32(data[len(data)-4:])
	if got := crcString(body); got != sum {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrInvalid, got, sum)
	}
	p := len(magic)
	version, dim, rows, flags := le32(body[p:]), int(le32(body[p+4:])), int(le32(body[p+8:])), le32(body[p+12:])
	p += 16
	if version != FormatVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads %d", ErrInvalid, version, FormatVersion)
	}
	if dim == 0 || dim > maxDim || flags&^(flagWeights|flagComp) != 0 {
		return nil, fmt.Errorf("%w: dim %d, flags %#x", ErrInvalid, dim, flags)
	}
	// Every row takes at least 1 (length) + 4 (scale) + dim bytes.
	if rows > (len(body)-p)/(5+dim) {
		return nil, fmt.Errorf("%w: %d rows cannot fit in %d bytes", ErrInvalid, rows, len(body))
	}
	v := &Vectors{Words: make([]string, rows), Table: Table{Dim: dim, Rows: rows}}
	for r := range v.Words {
		n, k := uvarintString(body[p:])
		if k <= 0 || n > uint64(len(body)-p-k) {
			return nil, fmt.Errorf("%w: word %d truncated", ErrInvalid, r)
		}
		p += k
		v.Words[r] = body[p : p+int(n)]
		p += int(n)
	}
	need := 4*rows + rows*dim
	if flags&flagWeights != 0 {
		need += 4 * rows
	}
	if flags&flagComp != 0 {
		need += 4 * dim
	}
	if len(body)-p != need {
		return nil, fmt.Errorf("%w: %d bytes after the words, want %d", ErrInvalid, len(body)-p, need)
	}
	v.Table.Scales, p = readFloats(body, p, rows)
	if flags&flagWeights != 0 {
		v.Table.Weights, p = readFloats(body, p, rows)
	}
	if flags&flagComp != 0 {
		v.Component, p = readFloats(body, p, dim)
	}
	v.Table.Vectors = make([]int8, rows*dim)
	for i := range v.Table.Vectors {
		v.Table.Vectors[i] = int8(body[p+i])
	}
	if err := v.Table.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}

func readFloats(s string, p, n int) ([]float32, int) {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = math.Float32frombits(le32(s[p:]))
		p += 4
	}
	return xs, p
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// uvarintString is binary.Uvarint over a string.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		b := s[i]
		if b < 0x80 {
			return x | uint64(b)<<shift, i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// crcString checksums s in small copied blocks, so a large embedded
// string is not copied whole.
func crcString(s string) uint32 {
	var buf [32 << 10]byte
	var sum uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		sum = crc32.Update(sum, castagnoli, buf[:n])
		s = s[n:]
	}
	return sum
}
