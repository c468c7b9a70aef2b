package pdf

import (
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"io"
)

// This file decodes streams the way github.com/ledongthuc/pdf does
// (read.go applyFilter), for the checks made before the library reads
// cross-reference and object streams (see checkXref).

// newZlibReader starts a FlateDecode stream (zlib format).
func newZlibReader(r io.Reader) (io.Reader, error) {
	return zlib.NewReader(r)
}

// pngUpReader undoes the PNG Up predictor (/Predictor 12) over rows of
// columns bytes, each preceded by a tag byte that must be 2.
type pngUpReader struct {
	r    io.Reader
	hist []byte
	tmp  []byte
	pend []byte
}

// newPNGUpReader returns a reader undoing the PNG Up predictor; columns
// must have been bounded (see checkParams).
func newPNGUpReader(r io.Reader, columns int64) io.Reader {
	return &pngUpReader{r: r, hist: make([]byte, 1+columns), tmp: make([]byte, 1+columns)}
}

func (r *pngUpReader) Read(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if len(r.pend) > 0 {
			m := copy(b, r.pend)
			n += m
			b = b[m:]
			r.pend = r.pend[m:]
			continue
		}
		if _, err := io.ReadFull(r.r, r.tmp); err != nil {
			return n, err
		}
		if r.tmp[0] != 2 {
			return n, errors.New("malformed PNG-Up encoding")
		}
		for i, c := range r.tmp {
			r.hist[i] += c
		}
		r.pend = r.hist[1:]
	}
	return n, nil
}

// newASCII85Reader decodes ASCII85 data, ignoring bytes outside the
// alphabet and stopping at '~', as the library does.
func newASCII85Reader(r io.Reader) io.Reader {
	return ascii85.NewDecoder(&ascii85Alpha{r: r})
}

// ascii85Alpha passes on the ASCII85 alphabet of r up to the first '~'.
type ascii85Alpha struct {
	r   io.Reader
	eod bool
}

func (a *ascii85Alpha) Read(p []byte) (int, error) {
	if a.eod {
		return 0, io.EOF
	}
	n, err := a.r.Read(p)
	out := 0
	for _, c := range p[:n] {
		if c == '~' {
			a.eod = true
			return out, io.EOF
		}
		if c >= '!' && c <= 'u' || c == 'z' {
			p[out] = c
			out++
		}
	}
	return out, err
}
