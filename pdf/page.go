package pdf

import (
	"context"
	"math"

	lpdf "github.com/ledongthuc/pdf"
)

// pageText returns the cleaned text of page p and whether its content was
// cut short because the text outgrew budget bytes (the caller trims the
// returned text to budget). fonts holds the document's fonts.
//
// A page whose content fails part way (malformed or truncated content
// stream, unsupported filter, a panic inside the PDF library) keeps the
// text laid out until then, possibly none, and no error: the caller keeps
// the page so that the rest of the document still counts. The only error
// is the context's, when it is cancelled while the page is interpreted.
func pageText(ctx context.Context, p lpdf.Page, budget int, fonts *fontCache) (text string, cut bool, err error) {
	in := &interp{ctx: ctx, fonts: fonts, maxText: collectLimit(budget)}
	if err := in.run(p); err != nil {
		return "", false, err
	}
	return cleanText(in.text.String()), in.cut, nil
}

// collectLimit returns how many bytes of raw text to collect for a budget
// of cleaned text: cleaning shrinks raw text (dropped glyph pieces,
// collapsed spaces), so somewhat more than the budget, without
// overflowing for huge budgets.
func collectLimit(budget int) int {
	const slack = 4096
	if budget > (math.MaxInt-slack)/2 {
		return math.MaxInt
	}
	return 2*budget + slack
}
