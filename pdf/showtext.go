package pdf

import (
	"math"

	lpdf "github.com/ledongthuc/pdf"
)

// setTextParam sets one of the numeric text state parameters.
func (s *scope) setTextParam(op string, v float64) {
	switch op {
	case "Tc":
		s.g.charSpace = v
	case "Tw":
		s.g.wordSpace = v
	case "Tz":
		s.g.hscale = v / 100
	case "TL":
		s.g.leading = v
	case "Ts":
		s.g.rise = v
	}
}

// moveLine starts a new text line offset by (tx, ty) from the current one.
func (s *scope) moveLine(tx, ty float64) {
	s.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(s.tlm)
	s.tm = s.tlm
}

// font returns the font resource called name, from the document's font
// cache (see fontCache.get), remembering it for this scope.
func (s *scope) font(name string) *font {
	if f, ok := s.fonts[name]; ok {
		return f
	}
	f := s.in.fonts.get(s.in.ctx, func() lpdf.Value { return s.res.Key("Font").Key(name) })
	s.fonts[name] = f
	return f
}

// showArray shows a TJ array: strings, and numbers that move the next glyph
// left by n/1000 of the font size.
func (s *scope) showArray(arr lpdf.Value) {
	for i := 0; i < arr.Len(); i++ {
		v := arr.Index(i)
		switch v.Kind() {
		case lpdf.String:
			s.show(v.RawString())
		case lpdf.Integer, lpdf.Real:
			tx := -num(v) / 1000 * s.g.fontSize * s.g.hscale
			s.tm = matrix{1, 0, 0, 1, tx, 0}.mul(s.tm)
		}
	}
}

// show places the glyphs of the string operand raw and advances the text
// matrix past them (PDF 32000-1 §9.4.4).
func (s *scope) show(raw string) {
	if s.g.font == nil {
		s.g.font = s.in.fonts.get(s.in.ctx, func() lpdf.Value { return lpdf.Value{} })
	}
	f, g := s.g.font, &s.g
	f.forEachCode(raw, func(code int, isSpace bool) {
		s.in.tickGlyph()
		gi := f.glyph(code)
		trm := matrix{g.fontSize * g.hscale, 0, 0, g.fontSize, 0, g.rise}.mul(s.tm).mul(g.ctm)
		w0 := gi.width * f.wscale
		s.in.add(glyph{
			x:     trm[4],
			y:     trm[5],
			w:     w0 * math.Hypot(trm[0], trm[1]),
			size:  math.Hypot(trm[2], trm[3]) * f.sizeScale,
			angle: math.Atan2(trm[1], trm[0]),
			text:  gi.text,
		})
		tx := w0*g.fontSize + g.charSpace
		if isSpace {
			tx += g.wordSpace
		}
		s.tm = matrix{1, 0, 0, 1, tx * g.hscale, 0}.mul(s.tm)
	})
}

// add lays out a glyph, rotating its position into its baseline frame,
// and stops interpretation once the text budget is used up.
func (in *interp) add(gl glyph) {
	if gl.text == "" {
		return
	}
	sin, cos := math.Sincos(gl.angle)
	gl.x, gl.y = gl.x*cos+gl.y*sin, -gl.x*sin+gl.y*cos
	in.text.add(gl)
	if in.text.Len() > in.maxText {
		in.cut = true
		panic(stop{})
	}
}
