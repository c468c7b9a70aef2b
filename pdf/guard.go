package pdf

import (
	"context"
	"io"

	lpdf "github.com/ledongthuc/pdf"
)

// Bounds on the streams handed to the PDF library.
const (
	// maxStreamBytes bounds the decoded size of one content stream (or
	// array of streams read as one), CMap or object stream. Real text pages
	// take well under 1 MiB.
	maxStreamBytes = 16 << 20
	// maxFilters bounds the filter chain of one stream, and maxDecoders the
	// chains of an array of content streams together: the library creates
	// every decoder (about 40 KB for a deflate one) before reading.
	maxFilters  = 8
	maxDecoders = 1024
	// maxPredictorRow bounds the row, in bytes, of a PNG predictor, which
	// the library allocates before reading anything: /Columns
	// 35184372088832 aborts the process. maxPredictorColors and
	// maxPredictorBits bound /Colors and /BitsPerComponent.
	maxPredictorRow    = 1 << 20
	maxPredictorColors = 32
	maxPredictorBits   = 16
)

// checkParams reports whether the integer entries /Columns, /Colors and
// /BitsPerComponent (0 when absent) of a filter's /DecodeParms are within
// bounds. The library only uses /Columns (PNG Up predictor), but all are
// checked, with the row size they imply.
func checkParams(columns, colors, bpc int64) bool {
	if columns < 0 || columns > maxPredictorRow || colors < 0 || colors > maxPredictorColors || bpc < 0 || bpc > maxPredictorBits {
		return false
	}
	if bpc == 0 {
		bpc = 8
	}
	return (columns*max(colors, 1)*bpc+7)/8 <= maxPredictorRow
}

// streamParams returns how many decoders the library creates for stream
// strm, and false when its filter chain is too long or its decoding
// parameters unbounded (see checkParams). As the library does, a single
// filter takes /DecodeParms and a filter array the element of the same
// index of a /DecodeParms array; a dictionary is checked either way.
func streamParams(strm lpdf.Value) (decoders int, ok bool) {
	filter := strm.Key("Filter")
	decoders = 1
	if filter.Kind() == lpdf.Array {
		if decoders = filter.Len(); decoders > maxFilters {
			return 0, false
		}
	}
	var params []lpdf.Value
	switch dp := strm.Key("DecodeParms"); dp.Kind() {
	case lpdf.Dict, lpdf.Stream:
		params = append(params, dp)
	case lpdf.Array:
		for i := 0; i < dp.Len() && i < decoders; i++ {
			params = append(params, dp.Index(i))
		}
	}
	for _, p := range params {
		if !checkParams(p.Key("Columns").Int64(), p.Key("Colors").Int64(), p.Key("BitsPerComponent").Int64()) {
			return 0, false
		}
	}
	return decoders, true
}

// openStream returns the decoded data of strm (a stream, or an array of
// streams read as one, as lpdf.Interpret reads them), or false when the
// library must not be asked for it: unbounded decoding parameters, too
// many decoders, or a stream the library cannot open (it panics, as it
// does on unsupported filters).
func openStream(strm lpdf.Value) (r io.Reader, ok bool) {
	defer func() {
		if recover() != nil {
			r, ok = nil, false
		}
	}()
	if strm.Kind() != lpdf.Array {
		if _, ok := streamParams(strm); !ok {
			return nil, false
		}
		return strm.Reader(), true
	}
	decoders := 0
	for i := 0; i < strm.Len(); i++ {
		n, ok := streamParams(strm.Index(i))
		if decoders += n; !ok || decoders > maxDecoders {
			return nil, false
		}
	}
	readers := make([]io.Reader, 0, strm.Len())
	for i := 0; i < strm.Len(); i++ {
		readers = append(readers, strm.Index(i).Reader())
	}
	return io.MultiReader(readers...), true
}

// checkStream reads the decoded data of strm (a stream, or an array of
// streams read as one, as lpdf.Interpret does) and reports whether the
// library's interpreter may be given it, as a content stream or as a CMap
// according to kind. It may not when:
//
//   - the library must not open it (see openStream);
//   - the data decodes to more than maxStreamBytes;
//   - the tokenizer would never return (see openHexStrings and
//     psScanner.openAtEnd);
//   - the token structure would make the interpreter hoard memory or
//     crawl (see psScanner): too many pending operands, a deep dictionary
//     stack, CMap entry counts without bound.
//
// The error is ctx's, if cancelled. Errors while decoding are left to the
// library, which panics on them (recovered by the callers) rather than
// hanging; the data up to the error is checked.
func checkStream(ctx context.Context, strm lpdf.Value, kind streamKind) (safe bool, err error) {
	r, ok := openStream(strm)
	if !ok {
		return false, nil
	}
	defer func() {
		if recover() != nil {
			safe, err = false, nil
		}
	}()
	buf := make([]byte, 32<<10)
	var hex openHexStrings
	sc := psScanner{kind: kind}
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
		sc.feed(buf[:n])
		if sc.bad {
			return false, nil
		}
		if err == io.EOF {
			sc.finish()
			return !hex.open() && !sc.openAtEnd && !sc.bad, nil
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
// '<' inside a literal string or a "<<" may be flagged too. (psScanner
// follows the tokenizer exactly; this cruder check backs it up.)
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
