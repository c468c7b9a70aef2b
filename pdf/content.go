package pdf

import (
	"context"
	"math"

	lpdf "github.com/ledongthuc/pdf"
)

// Limits on the work done for one page's content.
const (
	// maxFormDepth bounds nested form XObjects (forms drawing forms).
	maxFormDepth = 8
	// maxForms bounds the form XObjects executed for one page, so that a
	// form drawn many times by many nested forms cannot multiply the work.
	maxForms = 256
	// ctxCheckOps is how many content operators run between checks of the
	// context, and ctxCheckGlyphs how many glyphs are shown (decoding one
	// can take a while with a large CMap).
	ctxCheckOps    = 64
	ctxCheckGlyphs = 256
)

// A glyph is one shown character code with its position, in a frame
// rotated so that its baseline runs along +x.
type glyph struct {
	x, y  float64 // origin
	w     float64 // advance width (without character and word spacing)
	size  float64 // font size (em) in user space
	angle float64 // baseline direction in user space, radians
	text  string  // decoded text, possibly empty or several runes
}

// stop is the panic value that ends interpretation early: err is the
// context's error, or nil when the page's text budget is used up. Any
// other panic comes from malformed content (the library panics on
// decoding and parse errors) and ends only the stream it occurs in.
type stop struct{ err error }

// interp lays out the glyphs shown by one page, including those drawn by
// form XObjects.
//
// It replaces the library's Page.Content, which cannot be used as is: it
// appends a stray decoded "\n" code after every TJ array (showing up as
// "⊗" in TeX symbol fonts and shifting later glyphs), ignores word spacing
// and the widths of two-byte (CID) fonts, skips form XObjects, and panics
// on an unbalanced Q. The operators are tokenised by the library's
// Interpret and the codes decoded by its font encoders.
type interp struct {
	ctx     context.Context
	fonts   *fontCache // the document's fonts
	text    layout     // the page's text so far
	maxText int        // stop collecting beyond this many bytes
	cut     bool       // stopped because of maxText
	ops     int        // operators run, for context checks
	glyphs  int        // glyphs shown, for context checks
	forms   int        // form XObjects executed
}

// gstate is the part of the graphics state that affects text placement:
// the CTM and the text state parameters (PDF 32000-1 §8.4, §9.3).
type gstate struct {
	ctm       matrix
	font      *font
	fontSize  float64
	charSpace float64
	wordSpace float64
	hscale    float64
	leading   float64
	rise      float64
}

// scope interprets one content stream (a page or a form XObject) with its
// own resources.
type scope struct {
	in      *interp
	res     lpdf.Value
	fonts   map[string]*font
	g       gstate
	saved   []gstate
	tm, tlm matrix // text matrix and text line matrix
	depth   int    // form nesting depth
}

// run interprets the page's content streams, laying out text into in. It
// returns the context's error if interpretation was cancelled. When the
// content fails part way (malformed or truncated stream, a panic inside
// the PDF library), the text laid out until then is kept.
func (in *interp) run(p lpdf.Page) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if s, isStop := r.(stop); isStop {
				err = s.err
			}
		}
	}()
	if p.V.IsNull() {
		return nil
	}
	contents := p.V.Key("Contents")
	if contents.IsNull() {
		return nil
	}
	s := &scope{in: in, res: inheritedResources(p.V), g: gstate{ctm: identity(), hscale: 1}}
	s.exec(contents)
	return nil
}

// inheritedResources returns the /Resources of a page, which may be
// inherited from its ancestors in the page tree. It replaces the library's
// Page.Resources, which follows /Parent links without limit and so never
// returns when they form a cycle.
func inheritedResources(page lpdf.Value) lpdf.Value {
	v := page
	for range maxTreeDepth {
		if v.IsNull() {
			break
		}
		if res := v.Key("Resources"); !res.IsNull() {
			return res
		}
		v = v.Key("Parent")
	}
	return lpdf.Value{}
}

// exec interprets the content stream (or array of streams) strm, unless
// the library must not be given it (see checkStream).
func (s *scope) exec(strm lpdf.Value) {
	safe, err := checkStream(s.in.ctx, strm, contentStream)
	if err != nil {
		panic(stop{err: err})
	}
	if !safe {
		return
	}
	s.fonts = make(map[string]*font)
	s.tm, s.tlm = identity(), identity()
	lpdf.Interpret(strm, func(stk *lpdf.Stack, op string) {
		args := popAll(stk)
		s.in.tick()
		s.op(op, args)
	})
}

// tick counts an operator and checks the context every ctxCheckOps.
func (in *interp) tick() {
	in.ops++
	if in.ops%ctxCheckOps == 0 {
		in.checkContext()
	}
}

// tickGlyph counts a shown glyph and checks the context every
// ctxCheckGlyphs.
func (in *interp) tickGlyph() {
	in.glyphs++
	if in.glyphs%ctxCheckGlyphs == 0 {
		in.checkContext()
	}
}

// checkContext stops interpretation if the context is done.
func (in *interp) checkContext() {
	if err := in.ctx.Err(); err != nil {
		panic(stop{err: err})
	}
}

// popAll empties the operand stack, returning the operands in order.
func popAll(stk *lpdf.Stack) []lpdf.Value {
	args := make([]lpdf.Value, stk.Len())
	for i := len(args) - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	return args
}

// last returns the final n operands, or nil when there are fewer: stray
// operands before them are ignored rather than failing the page.
func last(args []lpdf.Value, n int) []lpdf.Value {
	if len(args) < n {
		return nil
	}
	return args[len(args)-n:]
}

// num returns a finite number operand, or 0.
func num(v lpdf.Value) float64 {
	f := v.Float64()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// op executes one content stream operator.
func (s *scope) op(op string, args []lpdf.Value) {
	switch op {
	case "q":
		s.saved = append(s.saved, s.g)
	case "Q":
		if n := len(s.saved); n > 0 {
			s.g = s.saved[n-1]
			s.saved = s.saved[:n-1]
		}
	case "cm":
		if a := last(args, 6); a != nil {
			s.g.ctm = toMatrix(a).mul(s.g.ctm)
		}
	case "BT":
		s.tm, s.tlm = identity(), identity()
	case "Tc", "Tw", "Tz", "TL", "Ts":
		if a := last(args, 1); a != nil {
			s.setTextParam(op, num(a[0]))
		}
	case "Tf":
		if a := last(args, 2); a != nil {
			s.g.font = s.font(a[0].Name())
			s.g.fontSize = num(a[1])
		}
	case "Td", "TD":
		if a := last(args, 2); a != nil {
			if op == "TD" {
				s.g.leading = -num(a[1])
			}
			s.moveLine(num(a[0]), num(a[1]))
		}
	case "Tm":
		if a := last(args, 6); a != nil {
			s.tm = toMatrix(a)
			s.tlm = s.tm
		}
	case "T*":
		s.moveLine(0, -s.g.leading)
	case "Tj":
		if a := last(args, 1); a != nil {
			s.show(a[0].RawString())
		}
	case "'":
		if a := last(args, 1); a != nil {
			s.moveLine(0, -s.g.leading)
			s.show(a[0].RawString())
		}
	case "\"":
		if a := last(args, 3); a != nil {
			s.g.wordSpace, s.g.charSpace = num(a[0]), num(a[1])
			s.moveLine(0, -s.g.leading)
			s.show(a[2].RawString())
		}
	case "TJ":
		if a := last(args, 1); a != nil {
			s.showArray(a[0])
		}
	case "Do":
		if a := last(args, 1); a != nil {
			s.form(a[0].Name())
		}
	}
}

// form executes the form XObject called name with its own resources and
// matrix (PDF 32000-1 §8.10). Image XObjects carry no text and are skipped.
// A form whose content fails keeps the text shown until then, and the
// page goes on after it.
func (s *scope) form(name string) {
	defer func() {
		if r := recover(); r != nil {
			if _, isStop := r.(stop); isStop {
				panic(r)
			}
		}
	}()
	xo := s.res.Key("XObject").Key(name)
	if xo.Kind() != lpdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return
	}
	if s.depth >= maxFormDepth || s.in.forms >= maxForms {
		return
	}
	s.in.forms++
	res := xo.Key("Resources")
	if res.IsNull() {
		res = s.res
	}
	child := &scope{in: s.in, res: res, g: s.g, depth: s.depth + 1}
	if m := xo.Key("Matrix"); m.Len() == 6 {
		child.g.ctm = toMatrix([]lpdf.Value{m.Index(0), m.Index(1), m.Index(2), m.Index(3), m.Index(4), m.Index(5)}).mul(s.g.ctm)
	}
	child.exec(xo)
}
