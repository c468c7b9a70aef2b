package pdf

import (
	"bytes"
	"fmt"
	"io"
)

// Bounds on the cross-reference data accepted (see checkXref).
const (
	// maxXrefSections bounds the /Prev chain of cross-reference sections
	// (one per incremental update).
	maxXrefSections = 4096
	// baseMaxObjects is the object count always allowed; files may declare
	// one more object per maxObjectsBytes bytes of file.
	baseMaxObjects  = 1 << 20
	maxObjectsBytes = 8
	// maxXrefFieldBytes bounds each /W entry of a cross-reference stream
	// (the fields are offsets and object numbers: 8 bytes hold any), and
	// maxXrefRowBytes their sum: the library allocates a row buffer of that
	// size before reading anything.
	maxXrefFieldBytes = 8
	maxXrefRowBytes   = 32
	// maxObjectStreams bounds the distinct object streams that the
	// cross-reference streams point into.
	maxObjectStreams = 1 << 16
	// maxExtendsChain bounds a chain of object streams linked by /Extends.
	maxExtendsChain = 64
	// maxObjStmDecoded bounds the bytes decoded, in total, to measure the
	// object streams of one file; beyond it their size is estimated from
	// their encoded length.
	maxObjStmDecoded = 256 << 20
)

// errTooComplex reports cross-reference data too large to vet.
var errTooComplex = fmt.Errorf("%w: cross-reference data too complex to check", ErrCorrupt)

// checkXref vets the cross-reference chain of data, and the object streams
// it points into, before the PDF library reads them, returning an error
// wrapping ErrCorrupt for files that would make the library loop forever,
// recurse without end or allocate without bound:
//
//   - a /Prev chain that loops (the library follows it forever);
//   - a subsection start, /Index start or xref stream /Size implying more
//     objects than the file could hold (the library allocates its object
//     table up to the highest object number first: a 1 KB file claiming
//     object 111111110 takes 3.5 GB), or /Index counts adding up to more
//     entries than that (the library reads every entry, even of zero bytes);
//   - an xref stream /W entry over 8 bytes or a row over 32 (the library
//     allocates the row buffer first: /W [1 35184372088832 1] aborts the
//     process), or bad decoding parameters (see checkParams);
//   - object streams that the library cannot open in bounded time (see
//     xrefCheck.objStm).
//
// Anything it cannot make sense of is left to the library, which reports
// it as malformed.
func checkXref(data []byte) error {
	off, ok := findStartXref(data)
	if !ok {
		return nil
	}
	x := &xrefCheck{
		data:       data,
		maxObjects: int64(baseMaxObjects) + int64(len(data))/maxObjectsBytes,
		streams:    make(map[int64]bool),
		state:      make(map[int64]uint8),
		budget:     maxObjStmDecoded,
	}
	seen := make(map[int64]bool)
	for i := 0; ; i++ {
		if i == maxXrefSections {
			return fmt.Errorf("%w: more than %d cross-reference sections", ErrCorrupt, maxXrefSections)
		}
		if off < 0 || off >= int64(len(data)) {
			break
		}
		if seen[off] {
			return fmt.Errorf("%w: cross-reference chain loops back to offset %d", ErrCorrupt, off)
		}
		seen[off] = true
		prev, more, err := x.section(off, i == 0)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		off = prev
	}
	return x.objectStreams()
}

// findStartXref returns the offset after the final startxref keyword,
// located as the library does: on its own line within the last 100 bytes,
// which must end with %%EOF.
func findStartXref(data []byte) (int64, bool) {
	const endChunk = 100
	if len(data) < endChunk {
		return 0, false
	}
	tail := bytes.TrimRight(data[len(data)-endChunk:], "\r\n\t ")
	if !bytes.HasSuffix(tail, []byte("%%EOF")) {
		return 0, false
	}
	i := findLastLine(tail, "startxref")
	if i < 0 {
		return 0, false
	}
	l := &lexer{data: tail, pos: i}
	if t := l.next(); t.kind != tokKeyword || t.s != "startxref" {
		return 0, false
	}
	t := l.next()
	return t.n, t.kind == tokInt
}

// findLastLine returns the index of the last occurrence of s in buf that
// is surrounded by line breaks, or -1 (the library's rule).
func findLastLine(buf []byte, s string) int {
	for end := len(buf); ; {
		i := bytes.LastIndex(buf[:end], []byte(s))
		if i <= 0 || i+len(s) >= len(buf) {
			return -1
		}
		if (buf[i-1] == '\n' || buf[i-1] == '\r') && (buf[i+len(s)] == '\n' || buf[i+len(s)] == '\r') {
			return i
		}
		end = i
	}
}

// xrefCheck is the state of checkXref.
type xrefCheck struct {
	data       []byte
	maxObjects int64
	entries    int64 // xref stream entries the library will read, in all sections

	// Cross-reference streams only (the library's table then never has
	// entries in object streams otherwise).
	xrefStreams bool           // the newest section is a stream
	encrypted   bool           // its dictionary has /Encrypt: object streams cannot be decoded here
	table       xrefTable      // merged entries
	streams     map[int64]bool // object streams named by entries
	state       map[int64]uint8
	budget      int64 // bytes that may still be decoded to measure object streams
}

// section checks the cross-reference table or stream at off and returns
// its /Prev offset, if it has one. newest is set for the first section
// read (the one startxref points to).
func (x *xrefCheck) section(off int64, newest bool) (prev int64, more bool, err error) {
	l := &lexer{data: x.data, pos: int(off)}
	t := l.next()
	if t.kind == tokKeyword && t.s == "xref" {
		return checkXrefTable(l, x.maxObjects)
	}
	// An xref stream: "n g obj << ... >> stream".
	if t.kind != tokInt || l.next().kind != tokInt {
		return 0, false, nil
	}
	if t := l.next(); t.kind != tokKeyword || t.s != "obj" {
		return 0, false, nil
	}
	strm, ok := l.object()
	if l.overflow {
		return 0, false, errTooComplex
	}
	if !ok || strm.kind != pStream {
		return 0, false, nil
	}
	if newest {
		x.xrefStreams = true
		x.encrypted = strm.key("Encrypt").kind != pNull
	}
	if err := x.xrefStream(strm); err != nil {
		return 0, false, err
	}
	p := strm.key("Prev")
	return p.n, p.kind == pInt, nil
}

// xrefStream checks a cross-reference stream as the library reads it
// (read.go readXrefStream, readXrefStreamData) and records its entries.
// The library reads its dictionary before there is any cross-reference
// table, so indirect references in it resolve to null.
func (x *xrefCheck) xrefStream(strm pval) error {
	if t := strm.key("Type"); t.kind != pName || t.s != "XRef" {
		return nil
	}
	size := strm.key("Size")
	if size.kind != pInt {
		return nil
	}
	if size.n > x.maxObjects {
		return fmt.Errorf("%w: cross-reference stream declares %d objects", ErrCorrupt, size.n)
	}
	index := []pval{{kind: pInt}, size}
	if ix := strm.key("Index"); ix.kind == pArray {
		index = ix.arr
	}
	if len(index)%2 != 0 {
		return nil
	}
	for i := 0; i+1 < len(index); i += 2 {
		start, count := index[i], index[i+1]
		if start.kind != pInt || count.kind != pInt {
			index = index[:i]
			break
		}
		if err := checkObjectRange(start.n, count.n, x.maxObjects); err != nil {
			return err
		}
		if x.entries += count.n; x.entries > 2*x.maxObjects {
			return fmt.Errorf("%w: cross-reference streams list more than %d entries", ErrCorrupt, 2*x.maxObjects)
		}
	}
	wv := strm.key("W")
	if wv.kind != pArray || len(wv.arr) < 3 {
		return nil
	}
	w := make([]int, len(wv.arr))
	row := 0
	for i, f := range wv.arr {
		if f.kind != pInt {
			return nil // the library rejects the stream
		}
		if f.n < 0 || f.n > maxXrefFieldBytes {
			return fmt.Errorf("%w: cross-reference stream field of %d bytes", ErrCorrupt, f.n)
		}
		w[i] = int(f.n)
		if row += w[i]; row > maxXrefRowBytes {
			return fmt.Errorf("%w: cross-reference stream rows of more than %d bytes", ErrCorrupt, maxXrefRowBytes)
		}
	}
	noRefs := func(v pval) (pval, error) {
		if v.kind == pRef {
			return pval{}, nil
		}
		return v, nil
	}
	r, ok, err := x.streamData(strm, strm.key("Length"), noRefs, false)
	if err != nil || !ok || !x.xrefStreams {
		return err
	}
	return x.readEntries(r, index, w, row)
}

// readEntries records the entries of a cross-reference stream, whose
// decoded data is r, in the merged table (read.go readXrefStreamData);
// its fields are w bytes wide, row in all.
func (x *xrefCheck) readEntries(r io.Reader, index []pval, w []int, row int) error {
	buf := make([]byte, row)
	for i := 0; i+1 < len(index); i += 2 {
		start, count := index[i].n, index[i+1].n
		for j := int64(0); j < count; j++ {
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil // the library rejects the stream
			}
			typ := int64(1)
			if w[0] > 0 {
				typ = decodeXrefInt(buf[:w[0]])
			}
			f2 := decodeXrefInt(buf[w[0] : w[0]+w[1]])
			f3 := decodeXrefInt(buf[w[0]+w[1] : w[0]+w[1]+w[2]])
			num := start + j
			switch typ {
			case 0:
				x.table.set(num, xrefFree)
			case 1:
				x.table.set(num, inUseEntry(f2, int64(uint16(f3))))
			case 2:
				s := int64(uint32(f2)) // the library's object number type
				x.table.set(num, xrefInStream|uint64(s))
				if !x.streams[s] {
					if len(x.streams) == maxObjectStreams {
						return fmt.Errorf("%w: entries in more than %d object streams", ErrCorrupt, maxObjectStreams)
					}
					x.streams[s] = true
				}
			}
		}
	}
	return nil
}

// decodeXrefInt decodes a big-endian field as the library does.
func decodeXrefInt(b []byte) int64 {
	var v int
	for _, c := range b {
		v = v<<8 | int(c)
	}
	return int64(v)
}

// objectStreams checks every object stream that entries point into.
func (x *xrefCheck) objectStreams() error {
	for s := range x.streams {
		if err := x.objStm(s, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

// States of xrefCheck.state.
const (
	objStmChecking = 1
	objStmChecked  = 2
)

// objStm checks the object stream num (generation gen), which the library
// opens to load any object stored in it (read.go resolve). For each such
// object it reads /N pairs of numbers, carrying on past the end of the data
// (each read then returns at once), and then follows /Extends to the next
// stream, without limit. So the stream is refused when
//
//   - it is itself stored in an object stream, or one of the entries the
//     library reads while opening it (/Length, /N, ...) is: the library
//     opens streams within streams recursively, which never ends (a fatal
//     stack overflow) when they lead back to this one;
//   - /N exceeds what its decoded data could hold, about two pairs per
//     byte of it (a huge /N loops for ages);
//   - it decodes to more than maxStreamBytes (each load decodes it again);
//   - its decoding parameters are unbounded (see checkParams);
//   - following /Extends loops, or goes on for more than maxExtendsChain
//     streams.
//
// Streams the library fails to open (not a stream, not /Type /ObjStm,
// unsupported filter, ...) are left to it: it panics, which is recovered.
func (x *xrefCheck) objStm(num, gen int64, depth int) error {
	switch x.state[num] {
	case objStmChecked:
		return nil
	case objStmChecking:
		return fmt.Errorf("%w: the /Extends chain of object stream %d loops", ErrCorrupt, num)
	}
	if depth > maxExtendsChain {
		return fmt.Errorf("%w: object streams extend more than %d others", ErrCorrupt, maxExtendsChain)
	}
	x.state[num] = objStmChecking
	defer func() { x.state[num] = objStmChecked }()

	e := x.table.get(num)
	if e.kind == xrefInStream {
		return fmt.Errorf("%w: object stream %d is stored in an object stream", ErrCorrupt, num)
	}
	if e.kind != xrefInUse || e.gen != gen {
		return nil
	}
	strm, ok, overflow := objectAt(x.data, e.off, num, gen)
	if overflow {
		return errTooComplex
	}
	if !ok || strm.kind != pStream {
		return nil
	}
	get := func(key string) (pval, error) { return x.resolve(strm.key(key)) }
	typ, err := get("Type")
	if err != nil || typ.kind != pName || typ.s != "ObjStm" {
		return err
	}
	n, err := get("N")
	if err != nil {
		return err
	}
	first, err := get("First")
	if err != nil || first.kind != pInt || first.n == 0 {
		return err
	}
	length, err := get("Length")
	if err != nil {
		return err
	}
	r, ok, err := x.streamData(strm, length, x.resolve, x.encrypted)
	if err != nil || !ok {
		return err
	}
	size, err := x.measure(r, strm, length)
	if err != nil {
		return err
	}
	if n.kind == pInt && n.n > size/2+1 {
		return fmt.Errorf("%w: object stream %d declares %d objects in %d bytes", ErrCorrupt, num, n.n, size)
	}
	ext := strm.key("Extends")
	if ext.kind != pRef {
		return nil
	}
	if x.table.get(ext.n).kind == xrefInStream {
		return fmt.Errorf("%w: object stream %d extends an object stored in an object stream", ErrCorrupt, num)
	}
	return x.objStm(ext.n, ext.gen, depth+1)
}

// measure returns the decoded size of the object stream strm, whose data
// is r, or an upper bound of it when it cannot be decoded here (r is nil
// for encrypted files; decoding budget used up). A stream decoding to more than
// maxStreamBytes is refused.
func (x *xrefCheck) measure(r io.Reader, strm, length pval) (int64, error) {
	if r != nil && x.budget > 0 {
		n, _ := io.Copy(io.Discard, io.LimitReader(r, maxStreamBytes+1))
		x.budget -= n
		if n > maxStreamBytes {
			return 0, fmt.Errorf("%w: object stream decodes to more than %d bytes", ErrCorrupt, maxStreamBytes)
		}
		return n, nil
	}
	// Deflate expands at most 1032 times, ASCII85 4 times (the "z" byte).
	size := min(max(length.n, 0), int64(len(x.data))-strm.n)
	filters, _, _ := x.filterChain(strm, x.resolve)
	for _, f := range filters {
		if size *= 4; f == "FlateDecode" {
			size *= 258
		}
		if size > maxStreamBytes {
			return maxStreamBytes, nil
		}
	}
	return size, nil
}

// resolve returns v or, if v is a reference, the object it refers to, as
// the library resolves it while opening an object stream: a reference to
// an object stored in an object stream is refused (see objStm), one the
// table does not have is null.
func (x *xrefCheck) resolve(v pval) (pval, error) {
	if v.kind != pRef {
		return v, nil
	}
	e := x.table.get(v.n)
	switch {
	case e.kind == xrefInStream:
		return pval{}, fmt.Errorf("%w: object stream entry %d %d R is stored in an object stream", ErrCorrupt, v.n, v.gen)
	case e.kind != xrefInUse || e.gen != v.gen:
		return pval{}, nil
	}
	obj, ok, overflow := objectAt(x.data, e.off, v.n, v.gen)
	if overflow {
		return pval{}, errTooComplex
	}
	if !ok || obj.kind == pRef {
		return pval{}, nil // the library panics
	}
	return obj, nil
}

// streamData returns the decoded data of strm, a stream parsed from the
// file, whose /Length is length, as the library's Value.Reader decodes it,
// with references resolved by resolve; ok is false when the library would
// panic instead. Unbounded decoding parameters are refused. r is nil when
// the file is encrypted and strm is not a cross-reference stream (which
// the library reads before it sets up decryption): its data is then
// ciphertext, and only whether the library can decode it is checked.
func (x *xrefCheck) streamData(strm, length pval, resolve func(pval) (pval, error), encrypted bool) (r io.Reader, ok bool, err error) {
	filters, params, err := x.filterChain(strm, resolve)
	if err != nil || filters == nil {
		return nil, false, err
	}
	for _, p := range params {
		if !checkParams(p.columns, p.colors, p.bpc) {
			return nil, false, fmt.Errorf("%w: unbounded stream decoding parameters", ErrCorrupt)
		}
	}
	if length.kind != pInt || length.n == 0 {
		return bytes.NewReader(nil), true, nil // read without filters
	}
	if encrypted {
		for i, f := range filters {
			if !filterSupported(f, params[i]) {
				return nil, false, nil
			}
		}
		return nil, true, nil
	}
	end := min(strm.n+max(length.n, 0), int64(len(x.data)))
	r = bytes.NewReader(x.data[strm.n:max(end, strm.n)])
	for i, f := range filters {
		if r, ok = applyFilter(r, f, params[i]); !ok {
			return nil, false, nil
		}
	}
	return r, true, nil
}

// filterParams are the decoding parameters of one filter.
type filterParams struct {
	isDict               bool // the parameters are a dictionary (or stream)
	predictor            pval
	columns, colors, bpc int64 // integer entries; 0 when absent
}

// filterChain returns the filters of strm and their parameters, paired as
// the library pairs them: a single filter takes /DecodeParms, a filter
// array takes the element of the same index of a /DecodeParms array.
// filters is nil (and err nil) when the library would panic, and an
// empty, non-nil slice for unfiltered data.
func (x *xrefCheck) filterChain(strm pval, resolve func(pval) (pval, error)) (filters []string, params []filterParams, err error) {
	filter, err := resolve(strm.key("Filter"))
	if err != nil {
		return nil, nil, err
	}
	dp, err := resolve(strm.key("DecodeParms"))
	if err != nil {
		return nil, nil, err
	}
	var names []pval
	var ps []pval
	switch filter.kind {
	case pNull:
		return []string{}, nil, nil
	case pName:
		names, ps = []pval{filter}, []pval{dp}
	case pArray:
		if len(filter.arr) > maxFilters {
			return nil, nil, fmt.Errorf("%w: a chain of %d filters", ErrCorrupt, len(filter.arr))
		}
		names = filter.arr
		for i := range names {
			var p pval
			if dp.kind == pArray && i < len(dp.arr) {
				p = dp.arr[i]
			}
			ps = append(ps, p)
		}
	default:
		return nil, nil, nil
	}
	filters = []string{}
	for i := range names {
		name, err := resolve(names[i])
		if err != nil {
			return nil, nil, err
		}
		p, err := x.params(ps[i], resolve)
		if err != nil {
			return nil, nil, err
		}
		filters = append(filters, name.s)
		params = append(params, p)
	}
	return filters, params, nil
}

// params reads the decoding parameters v of one filter.
func (x *xrefCheck) params(v pval, resolve func(pval) (pval, error)) (filterParams, error) {
	v, err := resolve(v)
	if err != nil || (v.kind != pDict && v.kind != pStream) {
		return filterParams{}, err
	}
	p := filterParams{isDict: true}
	if p.predictor, err = resolve(v.key("Predictor")); err != nil {
		return p, err
	}
	for _, f := range []struct {
		key string
		n   *int64
	}{{"Columns", &p.columns}, {"Colors", &p.colors}, {"BitsPerComponent", &p.bpc}} {
		val, err := resolve(v.key(f.key))
		if err != nil {
			return p, err
		}
		if val.kind == pInt {
			*f.n = val.n
		}
	}
	return p, nil
}

// filterSupported reports whether the library's applyFilter decodes with
// filter name and parameters p (rather than panicking).
func filterSupported(name string, p filterParams) bool {
	switch name {
	case "FlateDecode":
		return p.predictor.kind == pNull || p.predictor.kind == pInt && p.predictor.n == 12
	case "ASCII85Decode":
		return !p.isDict
	}
	return false
}

// applyFilter decodes r with one filter as the library's applyFilter does,
// or returns ok=false where it panics.
func applyFilter(r io.Reader, name string, p filterParams) (io.Reader, bool) {
	if !filterSupported(name, p) {
		return nil, false
	}
	switch name {
	case "FlateDecode":
		zr, err := newZlibReader(r)
		if err != nil {
			return nil, false
		}
		if p.predictor.kind == pNull {
			return zr, true
		}
		return newPNGUpReader(zr, p.columns), true
	default: // ASCII85Decode
		return newASCII85Reader(r), true
	}
}

// xrefTable is the merged table of cross-reference stream entries, kept as
// the library keeps it: the first entry read for an object (the newest
// section's) wins. Entries pack their kind in the top two bits; in-use
// entries their generation and offset, in-stream ones the stream number.
type xrefTable struct{ e []uint64 }

// Entry kinds, in the top bits of a packed entry (0: no entry).
const (
	xrefFree     uint64 = 1 << 62
	xrefInUse    uint64 = 2 << 62
	xrefInStream uint64 = 3 << 62
	xrefKindMask uint64 = 3 << 62

	xrefOffsetBits = 46
	xrefOffsetMask = 1<<xrefOffsetBits - 1
)

// inUseEntry packs an in-use entry; offsets outside the packed range
// (beyond any file that could be read) become the largest one.
func inUseEntry(off, gen int64) uint64 {
	if off < 0 || off > xrefOffsetMask {
		off = xrefOffsetMask
	}
	return xrefInUse | uint64(gen)<<xrefOffsetBits | uint64(off)
}

// xrefEntry is an unpacked entry.
type xrefEntry struct {
	kind uint64 // xrefFree, xrefInUse, xrefInStream or 0
	gen  int64
	off  int64 // in use: offset in the file; in stream: stream number
}

// set records the entry of object num unless it has one.
func (t *xrefTable) set(num int64, e uint64) {
	if num < 0 {
		return
	}
	if num >= int64(len(t.e)) {
		t.e = append(t.e, make([]uint64, num-int64(len(t.e))+1)...)
	}
	if t.e[num] == 0 {
		t.e[num] = e
	}
}

// get returns the entry of object num.
func (t *xrefTable) get(num int64) xrefEntry {
	if num < 0 || num >= int64(len(t.e)) {
		return xrefEntry{}
	}
	e := t.e[num]
	switch e & xrefKindMask {
	case xrefInUse:
		return xrefEntry{kind: xrefInUse, gen: int64(e>>xrefOffsetBits) & 0xffff, off: int64(e & xrefOffsetMask)}
	case xrefInStream:
		return xrefEntry{kind: xrefInStream, off: int64(e &^ xrefKindMask)}
	}
	return xrefEntry{kind: e & xrefKindMask}
}

// checkXrefTable checks the subsections of an xref table, whose keyword
// has been read, and returns the trailer's /Prev.
func checkXrefTable(l *lexer, maxObjects int64) (prev int64, more bool, err error) {
	for {
		t := l.next()
		if t.kind == tokKeyword && t.s == "trailer" {
			break
		}
		count := l.next()
		if t.kind != tokInt || count.kind != tokInt {
			return 0, false, nil
		}
		if err := checkObjectRange(t.n, count.n, maxObjects); err != nil {
			return 0, false, err
		}
		for range count.n {
			off, gen, kind := l.next(), l.next(), l.next()
			if off.kind != tokInt || gen.kind != tokInt || kind.kind != tokKeyword || kind.s != "n" && kind.s != "f" {
				return 0, false, nil // the library rejects the table
			}
		}
	}
	trailer, ok := l.object()
	if l.overflow {
		return 0, false, errTooComplex
	}
	if !ok || trailer.kind != pDict {
		return 0, false, nil
	}
	p := trailer.key("Prev")
	return p.n, p.kind == pInt, nil
}

// checkObjectRange checks a cross-reference subsection of count objects
// numbered from start.
func checkObjectRange(start, count, maxObjects int64) error {
	if start < 0 || count < 0 || start > maxObjects || count > maxObjects-start {
		return fmt.Errorf("%w: cross-reference subsection %d %d is out of range", ErrCorrupt, start, count)
	}
	return nil
}
