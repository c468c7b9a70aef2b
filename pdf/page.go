package pdf

import (
	"context"

	lpdf "github.com/ledongthuc/pdf"
)

// pageText returns the cleaned text of page p and whether its content was
// cut short because the text outgrew budget bytes (the caller trims the
// returned text to budget).
//
// A page whose content cannot be interpreted (malformed or truncated
// content stream, unsupported filter, a panic inside the PDF library)
// yields empty text and no error: the caller keeps the page, with empty
// text, so that the rest of the document still counts. The only error is
// the context's, when it is cancelled while the page is interpreted.
func pageText(ctx context.Context, p lpdf.Page, budget int) (text string, cut bool, err error) {
	// Cleaning shrinks raw text (dropped glyph pieces, collapsed spaces),
	// so collect somewhat more than the budget before stopping.
	in := &interp{ctx: ctx, maxText: 2*budget + 4096}
	ok, err := in.run(p)
	if err != nil {
		return "", false, err
	}
	if !ok {
		return "", false, nil
	}
	return cleanText(in.text.String()), in.cut, nil
}
