package pdf

import (
	"context"
	"math"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	lpdf "github.com/ledongthuc/pdf"
)

// font decodes the character codes of one font resource into text and
// knows each code's advance width.
type font struct {
	enc       lpdf.TextEncoding // the library's decoder; nil: Latin-1 (simple fonts) or no text (composite)
	utf16     bool              // composite font whose codes are UTF-16BE (Uni*-UCS2/UTF16 CMaps)
	composite bool              // Type0 font: two-byte codes
	first     int               // simple fonts: code of widths[0]
	widths    []float64         // simple fonts: /Widths, in glyph units
	cidWidths []cidWidth        // composite fonts: the descendant's /W
	defWidth  float64           // width of codes without an entry, in glyph units
	wscale    float64           // glyph units to text space (1/1000, or FontMatrix for Type3)
	sizeScale float64           // em size relative to the font size (Type3 FontMatrix)
	codes     map[int]glyphInfo // decoded codes
}

// cidWidth is one run of the /W array of a CIDFont: codes lo..hi have width
// w, or widths ws[code-lo] when ws is set.
type cidWidth struct {
	lo, hi int
	w      float64
	ws     []float64
}

// glyphInfo is the decoded text and width (glyph units) of one code.
type glyphInfo struct {
	text  string
	width float64
}

// Widths used when a font has no /Widths, which is allowed for the standard
// 14 fonts. Courier is monospaced; for the others half an em is a rough
// average that only matters when positioned strings follow each other.
const (
	defaultGlyphWidth = 500
	courierGlyphWidth = 600
	// maxCIDWidthRuns bounds the /W array that is parsed.
	maxCIDWidthRuns = 1 << 16
)

// newFont reads the font dictionary v (which may be null, for a font
// resource that is missing: its codes are then read as PDFDocEncoding).
// It panics with stop if ctx is cancelled while checking the font's
// /ToUnicode CMap.
func newFont(ctx context.Context, v lpdf.Value) *font {
	f := &font{wscale: 0.001, sizeScale: 1, defWidth: defaultGlyphWidth, codes: make(map[int]glyphInfo)}
	if strings.Contains(v.Key("BaseFont").Name(), "Courier") {
		f.defWidth = courierGlyphWidth
	}
	switch v.Key("Subtype").Name() {
	case "Type0":
		f.initComposite(ctx, v)
		return f
	case "Type3":
		if m := v.Key("FontMatrix"); m.Len() == 6 {
			if a := m.Index(0).Float64(); a != 0 && !math.IsNaN(a) && !math.IsInf(a, 0) {
				f.wscale = a
			}
			if d := math.Abs(m.Index(3).Float64()); d != 0 && !math.IsNaN(d) && !math.IsInf(d, 0) {
				f.sizeScale = d * 1000
			}
		}
	}
	// The library reads /ToUnicode only when there is no /Encoding.
	if v.Key("Encoding").IsNull() && !toUnicodeSafe(ctx, v) {
		f.enc = nil // codes read as Latin-1
	} else {
		lf := lpdf.Font{V: v}
		f.enc = lf.Encoder()
	}
	f.first = int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	for i := 0; i < ws.Len() && i < 256; i++ {
		f.widths = append(f.widths, ws.Index(i).Float64())
	}
	if mw := v.Key("FontDescriptor").Key("MissingWidth").Float64(); mw > 0 {
		f.defWidth = mw
	}
	return f
}

// initComposite sets up a Type0 font. Only the decoders whose output is
// text are kept: the library maps Identity-H codes through /ToUnicode, and
// the Uni*-UCS2/UTF16 CMaps encode UTF-16 directly. Anything else (no
// /ToUnicode, other CMaps) would turn glyph ids into garbage characters, so
// such codes produce no text.
func (f *font) initComposite(ctx context.Context, v lpdf.Value) {
	f.composite = true
	enc := v.Key("Encoding").Name()
	switch {
	case strings.Contains(enc, "UCS2") || strings.Contains(enc, "UTF16"):
		f.utf16 = true
	case enc == "Identity-H" && v.Key("ToUnicode").Kind() == lpdf.Stream && toUnicodeSafe(ctx, v):
		lf := lpdf.Font{V: v}
		f.enc = lf.Encoder()
	}
	d := v.Key("DescendantFonts").Index(0)
	f.defWidth = 1000
	if dw := d.Key("DW"); dw.Kind() == lpdf.Integer || dw.Kind() == lpdf.Real {
		f.defWidth = dw.Float64()
	}
	f.cidWidths = parseCIDWidths(d.Key("W"))
}

// toUnicodeSafe reports whether the font's /ToUnicode CMap, if it has a
// stream, may be parsed by the library (see checkStream).
func toUnicodeSafe(ctx context.Context, v lpdf.Value) bool {
	cmap := v.Key("ToUnicode")
	if cmap.Kind() != lpdf.Stream {
		return true
	}
	safe, err := checkStream(ctx, cmap)
	if err != nil {
		panic(stop{err: err})
	}
	return safe
}

// parseCIDWidths reads a CIDFont /W array: "c [w1 w2 ...]" and
// "cfirst clast w" runs (PDF 32000-1 §9.7.4.3).
func parseCIDWidths(w lpdf.Value) []cidWidth {
	var runs []cidWidth
	for i := 0; i+1 < w.Len() && len(runs) < maxCIDWidthRuns; {
		lo := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == lpdf.Array {
			ws := make([]float64, 0, next.Len())
			for j := 0; j < next.Len(); j++ {
				ws = append(ws, next.Index(j).Float64())
			}
			runs = append(runs, cidWidth{lo: lo, hi: lo + len(ws) - 1, ws: ws})
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		runs = append(runs, cidWidth{lo: lo, hi: int(next.Int64()), w: w.Index(i + 2).Float64()})
		i += 3
	}
	return runs
}

// forEachCode calls fn for every character code in the string operand raw:
// one byte per code for simple fonts, two (big-endian) for composite fonts.
// The bool tells whether the code is the single-byte space to which word
// spacing applies.
func (f *font) forEachCode(raw string, fn func(code int, wordSpace bool)) {
	if !f.composite {
		for i := 0; i < len(raw); i++ {
			fn(int(raw[i]), raw[i] == ' ')
		}
		return
	}
	for i := 0; i < len(raw); i += 2 {
		if i+1 == len(raw) {
			fn(int(raw[i]), raw[i] == ' ')
			break
		}
		fn(int(raw[i])<<8|int(raw[i+1]), false)
	}
}

// glyph returns the text and width of code, decoding it once per font.
func (f *font) glyph(code int) glyphInfo {
	if g, ok := f.codes[code]; ok {
		return g
	}
	g := glyphInfo{text: f.decode(code), width: f.width(code)}
	f.codes[code] = g
	return g
}

// decode returns the text of one code.
func (f *font) decode(code int) string {
	if f.utf16 {
		return string(utf16.Decode([]uint16{uint16(code)}))
	}
	if f.enc == nil {
		if f.composite {
			return ""
		}
		return string(rune(code))
	}
	var raw string
	if f.composite {
		raw = string([]byte{byte(code >> 8), byte(code)})
	} else {
		raw = string([]byte{byte(code)})
	}
	s := f.enc.Decode(raw)
	if utf8.ValidString(s) {
		return s
	}
	if f.composite {
		return ""
	}
	// The library passes the code through unchanged for encodings it does
	// not know (e.g. /StandardEncoding); read it as Latin-1, which agrees
	// with those encodings on letters and digits.
	return string(rune(code))
}

// width returns the advance width of code in glyph units.
func (f *font) width(code int) float64 {
	if f.composite {
		for _, r := range f.cidWidths {
			if code < r.lo || code > r.hi {
				continue
			}
			if r.ws != nil {
				return r.ws[code-r.lo]
			}
			return r.w
		}
		return f.defWidth
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return f.defWidth
}
