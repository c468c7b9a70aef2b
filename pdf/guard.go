package pdf

import (
	"context"
	"io"

	lpdf "github.com/ledongthuc/pdf"
)

// maxStreamBytes bounds the decoded size of one content stream (or CMap)
// handed to the library's tokenizer.
const maxStreamBytes = 256 << 20

// checkStream reads the decoded data of strm (a stream, or an array of
// streams read as one, as lpdf.Interpret does) and reports whether the
// library's tokenizer may be given it: not when it would never return
// (see openHexStrings) or when the data decodes to more than
// maxStreamBytes. The error is ctx's, if cancelled. Errors while decoding
// are left to the library, which panics on them (recovered by the
// callers) rather than hanging.
func checkStream(ctx context.Context, strm lpdf.Value) (safe bool, err error) {
	var r io.Reader
	if strm.Kind() == lpdf.Array {
		readers := make([]io.Reader, 0, strm.Len())
		for i := 0; i < strm.Len(); i++ {
			readers = append(readers, strm.Index(i).Reader())
		}
		r = io.MultiReader(readers...)
	} else {
		r = strm.Reader()
	}
	buf := make([]byte, 32<<10)
	var hex openHexStrings
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, err := r.Read(buf)
		total += int64(n)
		if total > maxStreamBytes {
			return false, nil
		}
		hex.feed(buf[:n])
		if err == io.EOF {
			return !hex.open(), nil
		}
		if err != nil {
			return true, nil
		}
	}
}

// openHexStrings tracks, over data fed in order, the hex strings that
// could still be open at the end of the data.
//
// The tokenizer of github.com/ledongthuc/pdf never returns from a hex
// string that is open at the end of its input: at end of data its byte
// reader keeps returning '\n', which the hex-string reader skips as white
// space while waiting for the next digit or '>'. The reader takes the
// non-space bytes after '<' in pairs, stops at a '>' and panics (which is
// recovered) on a pair that is not two hex digits. So a string started at
// some '<' is still open at the end exactly when no '>' follows and every
// complete pair after it is hex; the last, unpaired byte may be anything.
// Every '<' is treated as a possible start, which is conservative: a
// '<' inside a literal string or a "<<" may be flagged too.
type openHexStrings struct {
	// Candidates still open: each is a '<' start whose pairs so far were
	// hex. pending holds the first byte of an incomplete pair.
	cands []hexCand
}

// hexCand is one possible open hex string.
type hexCand struct {
	pending    byte
	hasPending bool
}

// feed advances the candidates over data.
func (h *openHexStrings) feed(data []byte) {
	for _, c := range data {
		if isPDFSpace(c) {
			continue
		}
		if c == '>' { // ends (or breaks) every string in progress
			h.cands = h.cands[:0]
			continue
		}
		live := h.cands[:0]
		for _, k := range h.cands {
			switch {
			case !k.hasPending:
				live = append(live, hexCand{pending: c, hasPending: true})
			case isHexDigit(k.pending) && isHexDigit(c):
				live = append(live, hexCand{})
			}
		}
		h.cands = live
		if c == '<' {
			h.cands = append(h.cands, hexCand{})
		}
	}
}

// open reports whether a hex string may be open at the end of the data.
func (h *openHexStrings) open() bool { return len(h.cands) > 0 }

// isHexDigit reports whether c is 0-9, a-f or A-F.
func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isPDFSpace reports whether c is PDF white space.
func isPDFSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}
