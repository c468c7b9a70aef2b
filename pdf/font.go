package pdf

import (
	"context"
	"math"
	"sort"
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
	cache     *fontCache        // the document's font cache, which bounds codes
}

// cidWidth is one run of the /W array of a CIDFont: codes lo..hi have width
// w, or widths ws[code-lo] when ws is set. A font's runs are sorted and
// disjoint (see parseCIDWidths).
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
	// maxCIDWidthRuns bounds the runs of a /W array that are parsed, and
	// maxCIDWidths the widths listed by its arrays.
	maxCIDWidthRuns = 1 << 16
	maxCIDWidths    = 1 << 18
	// maxCode is the largest character code: codes are one or two bytes.
	maxCode = 0xffff
	// maxDifferences bounds the /Differences array of a simple font's
	// encoding (256 codes need at most 512 entries): the library scans it
	// all for every code it decodes.
	maxDifferences = 1024
)

// Bounds on the fonts cached for one document (see fontCache).
const (
	maxCachedFonts  = 1024
	maxCachedGlyphs = 1 << 20
	maxFontKeyBytes = 1 << 16
)

// fontCache holds the fonts read for one document, shared by its pages and
// forms. A font is keyed by the text of its dictionary (lpdf.Value.String),
// which spells out its direct entries and names the indirect objects it
// refers to, whose meaning is fixed within a file: equal keys make equal
// fonts, however many resource dictionaries refer to them.
type fontCache struct {
	fonts  map[string]*font
	glyphs int // codes decoded and cached by all fonts
}

// newFontCache returns an empty cache.
func newFontCache() *fontCache {
	return &fontCache{fonts: make(map[string]*font)}
}

// get returns the font whose dictionary lookup returns. A dictionary that
// cannot be read, or a font that cannot be set up, is replaced by a plain
// PDFDocEncoding font rather than failing the page. It panics with stop if
// ctx is cancelled while checking the font's /ToUnicode CMap.
func (c *fontCache) get(ctx context.Context, lookup func() lpdf.Value) *font {
	v := safeValue(lookup)
	key := v.String()
	if f, ok := c.fonts[key]; ok {
		return f
	}
	f := func() (f *font) {
		defer func() {
			if r := recover(); r != nil {
				if _, isStop := r.(stop); isStop {
					panic(r)
				}
				f = newFont(ctx, lpdf.Value{})
			}
		}()
		return newFont(ctx, v)
	}()
	f.cache = c
	if len(c.fonts) < maxCachedFonts && len(key) <= maxFontKeyBytes {
		c.fonts[key] = f
	}
	return f
}

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
	// The library reads /ToUnicode only when there is no /Encoding, or
	// when it is /Identity-H; it scans /Differences for every code.
	enc := v.Key("Encoding")
	switch {
	case (enc.IsNull() || enc.Name() == "Identity-H") && !toUnicodeSafe(ctx, v),
		enc.Kind() == lpdf.Dict && enc.Key("Differences").Len() > maxDifferences:
		f.enc = nil // codes read as Latin-1
	default:
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
	safe, err := checkStream(ctx, cmap, cmapStream)
	if err != nil {
		panic(stop{err: err})
	}
	return safe
}

// parseCIDWidths reads a CIDFont /W array: "c [w1 w2 ...]" and
// "cfirst clast w" runs (PDF 32000-1 §9.7.4.3). Runs are clipped to the
// codes 0..maxCode and returned sorted and disjoint, so that width can
// search them: where runs overlap (which the specification does not
// allow), the one starting first wins, the earlier one in the array on a
// tie.
func parseCIDWidths(w lpdf.Value) []cidWidth {
	type run struct {
		start int64 // the run's first code as written, before clipping
		cidWidth
	}
	var runs []run
	widths := 0
	for i, n := 0, 0; i+1 < w.Len() && n < maxCIDWidthRuns && widths < maxCIDWidths; n++ {
		lo := w.Index(i).Int64()
		next := w.Index(i + 1)
		if next.Kind() == lpdf.Array {
			i += 2
			// Only the widths of codes 0..maxCode are kept.
			from, to := max(0, -lo), min(int64(next.Len()), maxCode+1-lo)
			if from >= to {
				continue
			}
			to = min(to, from+int64(maxCIDWidths-widths))
			ws := make([]float64, 0, to-from)
			for j := from; j < to; j++ {
				ws = append(ws, next.Index(int(j)).Float64())
			}
			widths += len(ws)
			runs = append(runs, run{lo, cidWidth{lo: int(lo + from), hi: int(lo + to - 1), ws: ws}})
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		hi, width := next.Int64(), w.Index(i+2).Float64()
		i += 3
		if clo, chi := max(lo, 0), min(hi, maxCode); clo <= chi {
			runs = append(runs, run{lo, cidWidth{lo: int(clo), hi: int(chi), w: width}})
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].start < runs[j].start })
	out := make([]cidWidth, 0, len(runs))
	for _, r := range runs {
		// A run starting later keeps only its codes beyond the runs
		// before it: the one before it in out ends last (runs are
		// trimmed to not overlap, and sorted).
		if n := len(out); n > 0 && r.lo <= out[n-1].hi {
			prevHi := out[n-1].hi
			if r.hi <= prevHi {
				continue
			}
			if r.ws != nil {
				r.ws = r.ws[prevHi+1-r.lo:]
			}
			r.lo = prevHi + 1
		}
		out = append(out, r.cidWidth)
	}
	return out
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

// glyph returns the text and width of code, decoding it once per font
// while the document's cache has room.
func (f *font) glyph(code int) glyphInfo {
	if g, ok := f.codes[code]; ok {
		return g
	}
	g := glyphInfo{text: f.decode(code), width: f.width(code)}
	if f.cache == nil || f.cache.glyphs < maxCachedGlyphs {
		f.codes[code] = g
		if f.cache != nil {
			f.cache.glyphs++
		}
	}
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
	s, ok := decodeSafe(f.enc, raw)
	if !ok {
		return "" // the library's decoder panicked on this code
	}
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

// decodeSafe decodes raw with enc, and reports false if it panicked (the
// library's CMap decoder indexes byte strings from the file unchecked).
func decodeSafe(enc lpdf.TextEncoding, raw string) (s string, ok bool) {
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	return enc.Decode(raw), true
}

// width returns the advance width of code in glyph units.
func (f *font) width(code int) float64 {
	if f.composite {
		runs := f.cidWidths
		i := sort.Search(len(runs), func(i int) bool { return runs[i].hi >= code })
		if i == len(runs) || runs[i].lo > code {
			return f.defWidth
		}
		if runs[i].ws != nil {
			return runs[i].ws[code-runs[i].lo]
		}
		return runs[i].w
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return f.defWidth
}
