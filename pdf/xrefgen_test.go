package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// This file extends the test PDF writer (pdfgen_test.go) to PDF 1.5 files
// whose objects are listed by a cross-reference stream and may be stored
// in object streams.

// xobj is one object of an xrefFile, numbered from 1 in order.
type xobj struct {
	body    string // the object; for streams, extra dictionary entries
	stream  bool   // a stream, with data
	data    []byte // stream data (object streams: built from their members)
	deflate bool   // compress the stream data (adding /Filter /FlateDecode)
	in      int    // store the object in this object stream
	missing bool   // listed in its object stream by the xref only
	raw     bool   // an object stream written as given (body and data), not built from its members
}

// xrefFile is a file with a cross-reference stream.
type xrefFile struct {
	objs      []xobj
	root      int
	extra     string            // extra cross-reference stream dictionary entries (later keys win)
	predictor bool              // encode the xref stream with Flate and the PNG Up predictor
	entries   map[int][3]uint64 // entries to write instead of the real ones: type, field 2, field 3
}

// add appends an object and returns its number.
func (f *xrefFile) add(o xobj) int {
	f.objs = append(f.objs, o)
	return len(f.objs)
}

// deflated returns data compressed in zlib format.
func deflated(data []byte) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// run is a piece of data repeated times times.
type run struct {
	data  []byte
	times int
}

// repeated returns runs making s repeated times times, in blocks of about
// 64 KiB.
func repeated(s string, times int) []run {
	k := max(1, 64<<10/len(s))
	return []run{{[]byte(strings.Repeat(s, k)), times / k}, {[]byte(s), times % k}}
}

// deflatedRuns returns the zlib stream of the runs' data, cheaply however
// large the data: each run's data is compressed once, alone (so without
// references to what precedes it) and flushed to a byte boundary, then
// repeated. The Adler-32 checksum is left zero, as if cut off: the tests
// that use this give up long before reaching it.
func deflatedRuns(runs ...run) []byte {
	out := []byte{0x78, 0x9c}
	for _, r := range runs {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestCompression)
		fw.Write(r.data)
		fw.Flush()
		out = append(out, bytes.Repeat(b.Bytes(), r.times)...)
	}
	return append(out, 0x03, 0x00, 0, 0, 0, 0) // final empty block, checksum
}

// bytes writes the file.
func (f *xrefFile) bytes(t testing.TB) []byte {
	t.Helper()
	n := len(f.objs)
	// Build object streams from their members.
	type place struct{ stm, index int }
	places := make(map[int]place)
	members := make(map[int][]int)
	for i, o := range f.objs {
		if o.in > 0 {
			members[o.in] = append(members[o.in], i+1)
		}
	}
	objs := append([]xobj(nil), f.objs...)
	for stm, ms := range members {
		if objs[stm-1].raw {
			for i, m := range ms {
				places[m] = place{stm, i}
			}
			continue
		}
		var head, body strings.Builder
		written := 0
		for i, m := range ms {
			places[m] = place{stm, i}
			if objs[m-1].missing {
				continue
			}
			fmt.Fprintf(&head, "%d %d ", m, body.Len())
			body.WriteString(objs[m-1].body + "\n")
			written++
		}
		o := &objs[stm-1]
		o.data = []byte(head.String() + body.String())
		o.body = fmt.Sprintf("/Type /ObjStm /N %d /First %d %s", written, head.Len(), o.body)
		o.stream = true
	}

	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, n+2)
	for i, o := range objs {
		num := i + 1
		if o.in > 0 {
			continue
		}
		offsets[num] = b.Len()
		if !o.stream {
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", num, o.body)
			continue
		}
		data, dict := o.data, o.body
		if o.deflate {
			data, dict = deflated(data), dict+" /Filter /FlateDecode"
		}
		fmt.Fprintf(&b, "%d 0 obj\n<< /Length %d %s >>\nstream\n", num, len(data), dict)
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	xrefNum := n + 1
	offsets[xrefNum] = b.Len()
	var rows [][]byte
	for num := 0; num <= xrefNum; num++ {
		e := [3]uint64{1, uint64(offsets[num]), 0}
		switch p, ok := places[num]; {
		case num == 0:
			e = [3]uint64{0, 0, 65535}
		case ok:
			e = [3]uint64{2, uint64(p.stm), uint64(p.index)}
		}
		if o, ok := f.entries[num]; ok {
			e = o
		}
		row := []byte{byte(e[0]), 0, 0, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(row[1:5], uint32(e[1]))
		binary.BigEndian.PutUint16(row[5:7], uint16(e[2]))
		rows = append(rows, row)
	}
	var data []byte
	dict := fmt.Sprintf("/Type /XRef /Size %d /W [1 4 2] /Root %d 0 R", xrefNum+1, f.root)
	if f.predictor {
		prev := make([]byte, 7)
		var raw []byte
		for _, row := range rows {
			raw = append(raw, 2)
			for i, c := range row {
				raw = append(raw, c-prev[i])
			}
			prev = row
		}
		data = deflated(raw)
		dict += " /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>"
	} else {
		data = bytes.Join(rows, nil)
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< %s /Length %d %s >>\nstream\n", xrefNum, dict, len(data), f.extra)
	b.Write(data)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", offsets[xrefNum])
	return b.Bytes()
}

// onePageXref returns a one-page file with a cross-reference stream whose
// catalog, page tree and page are stored in an object stream (object 5),
// with the object stream's extra entries stm; page is object 3.
func onePageXref(stm string, text string) *xrefFile {
	f := &xrefFile{root: 1, predictor: true}
	f.add(xobj{body: "<< /Type /Catalog /Pages 2 0 R >>", in: 5})
	f.add(xobj{body: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", in: 5})
	f.add(xobj{body: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>", in: 5})
	f.add(xobj{body: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", in: 5})
	f.add(xobj{body: stm, deflate: true}) // the object stream: members give it /Type /ObjStm /N /First
	f.add(xobj{stream: true, deflate: true, data: []byte(textStream([]string{text}))})
	return f
}
