package pdf

import (
	"math"
	"strings"
)

// Layout thresholds, as fractions of the font size unless noted.
const (
	// lineShift is the baseline shift beyond which a glyph starts a new
	// line. Sub- and superscripts move by less (TeX: about 0.25 and 0.4 em),
	// line feeds by more (leading is at least about 1 em).
	lineShift = 0.5
	// wordGap is the horizontal gap beyond which two glyphs belong to
	// different words. Kerning stays well below it (|kern| < 0.1 em), an
	// inter-word space well above (TeX's shrunk space is about 0.2 em).
	wordGap = 0.15
	// backJump is how far a glyph may start left of the previous glyph's end
	// (overprinted accents, tight kerning) before it starts a new word.
	backJump = 1.0
	// angleTolerance is the change of baseline direction, in radians, that
	// starts a new line.
	angleTolerance = 0.1
	// minFontSize (user space points) keeps thresholds sane for degenerate
	// font sizes.
	minFontSize = 0.5
)

// layout turns glyphs, fed in content stream order, into lines of words.
//
// The library's Page.GetPlainText concatenates shown strings without
// separators, so words positioned apart rather than separated by a space
// character (all LaTeX output: "Thereareapproachesto...") run together and
// lines join; GetTextByRow buckets by integer Y and loses the kerning that
// tells words apart. Instead words and lines are rebuilt from glyph
// geometry: content stream order is kept, which for generated PDFs is
// reading order (columns stay separate, unlike sorting by position), a
// baseline shift of more than half the font size starts a new line, and a
// horizontal gap of more than 0.15 em between glyphs inserts a space.
//
// It works on one glyph at a time, so a page's glyphs are never all held
// in memory.
type layout struct {
	b         strings.Builder
	prev      glyph
	started   bool
	lineY     float64 // baseline of the current line
	lineSize  float64 // largest font size on the current line
	lineAngle float64 // baseline direction of the current line
}

// add appends glyph g, preceded by a newline or a space when its position
// says so.
func (l *layout) add(g glyph) {
	switch {
	case !l.started:
		l.started = true
		l.newLine(g)
	case math.Abs(g.angle-l.lineAngle) > angleTolerance ||
		math.Abs(g.y-l.lineY) > lineShift*max(l.lineSize, g.size, minFontSize):
		l.b.WriteByte('\n')
		l.newLine(g)
	case separateWords(l.prev, g):
		l.b.WriteByte(' ')
	}
	l.lineSize = max(l.lineSize, g.size)
	l.b.WriteString(g.text)
	l.prev = g
}

// newLine starts a line at glyph g.
func (l *layout) newLine(g glyph) {
	l.lineY, l.lineSize, l.lineAngle = g.y, g.size, g.angle
}

// Len returns the number of bytes laid out so far.
func (l *layout) Len() int { return l.b.Len() }

// String returns the text laid out so far.
func (l *layout) String() string { return l.b.String() }

// separateWords reports whether the gap between consecutive glyphs p and g
// on one line is a word break.
func separateWords(p, g glyph) bool {
	size := max(p.size, g.size, minFontSize)
	gap := g.x - (p.x + p.w)
	return gap > wordGap*size || gap < -backJump*size
}
