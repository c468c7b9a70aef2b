package pdf

import (
	"bytes"
	"fmt"
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
)

// checkXref vets the cross-reference chain of data before the PDF library
// reads it, returning an error wrapping ErrCorrupt for chains that would
// make the library loop forever or allocate without bound:
//
//   - a /Prev chain that loops (the library follows it forever);
//   - a subsection start, /Index start or xref stream /Size implying more
//     objects than the file could hold (the library allocates its object
//     table up to the highest object number first: a 1 KB file claiming
//     object 111111110 takes 3.5 GB).
//
// Anything it cannot make sense of is left to the library, which reports
// it as malformed.
func checkXref(data []byte) error {
	off, ok := findStartXref(data)
	if !ok {
		return nil
	}
	maxObjects := int64(baseMaxObjects) + int64(len(data))/maxObjectsBytes
	seen := make(map[int64]bool)
	for range maxXrefSections {
		if off < 0 || off >= int64(len(data)) {
			return nil
		}
		if seen[off] {
			return fmt.Errorf("%w: cross-reference chain loops back to offset %d", ErrCorrupt, off)
		}
		seen[off] = true
		prev, more, err := checkXrefSection(&lexer{data: data, pos: int(off)}, maxObjects)
		if err != nil || !more {
			return err
		}
		off = prev
	}
	return fmt.Errorf("%w: more than %d cross-reference sections", ErrCorrupt, maxXrefSections)
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

// checkXrefSection checks the cross-reference table or stream at l and
// returns its /Prev offset, if it has one.
func checkXrefSection(l *lexer, maxObjects int64) (prev int64, more bool, err error) {
	t := l.next()
	if t.kind == tokKeyword && t.s == "xref" {
		return checkXrefTable(l, maxObjects)
	}
	// An xref stream: "n g obj << ... >> stream".
	if t.kind != tokInt || l.next().kind != tokInt {
		return 0, false, nil
	}
	if t := l.next(); t.kind != tokKeyword || t.s != "obj" || l.next().kind != tokDictOpen {
		return 0, false, nil
	}
	ints, arrays, ok := l.dictEntries("Size", "Index", "Prev")
	if !ok {
		return 0, false, nil
	}
	if size, ok := ints["Size"]; ok && size > maxObjects {
		return 0, false, fmt.Errorf("%w: cross-reference stream declares %d objects", ErrCorrupt, size)
	}
	index := arrays["Index"]
	for i := 0; i+1 < len(index); i += 2 {
		if err := checkObjectRange(index[i], index[i+1], maxObjects); err != nil {
			return 0, false, err
		}
	}
	prev, more = ints["Prev"]
	return prev, more, nil
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
	if l.next().kind != tokDictOpen {
		return 0, false, nil
	}
	ints, _, ok := l.dictEntries("Prev")
	if !ok {
		return 0, false, nil
	}
	prev, more = ints["Prev"]
	return prev, more, nil
}

// checkObjectRange checks a cross-reference subsection of count objects
// numbered from start.
func checkObjectRange(start, count, maxObjects int64) error {
	if start < 0 || count < 0 || start > maxObjects || count > maxObjects-start {
		return fmt.Errorf("%w: cross-reference subsection %d %d is out of range", ErrCorrupt, start, count)
	}
	return nil
}
