package search

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Snippet shape: up to snippetLines consecutive lines, about snippetChars
// characters, query terms wrapped in HighlightOpen/HighlightClose.
const (
	snippetLines   = 3
	snippetChars   = 300
	HighlightOpen  = "**"
	HighlightClose = "**"
)

type snip struct {
	text               string
	lineStart, lineEnd int
}

type span struct{ start, end int }

// line is one body line inside the snippet region.
type line struct {
	start, end int // byte offsets in the body
	no         int // file line
	page       int // PDF page (0 for markdown)
	terms      map[string]bool
	spans      []span
}

// snippet picks the window of lines in body[start:end] that holds the most
// distinct query terms (weighted by idf) and marks the terms.
func (e *Engine) snippet(n *vault.Note, start, end int, query string) snip {
	idf := map[string]float64{}
	e.an.Each(query, analysis.Query, func(t string, _, _ int) { idf[t] = e.tfidf.IDF(t) })
	lines := e.regionLines(n, start, end)
	if len(lines) == 0 {
		return snip{lineStart: n.BodyLine, lineEnd: n.BodyLine}
	}
	region := n.Body[lines[0].start:lines[len(lines)-1].end]
	base := lines[0].start
	li := 0
	e.an.Each(region, analysis.Index, func(t string, s, en int) {
		if _, ok := idf[t]; !ok {
			return
		}
		for lines[li].end < base+s {
			li++
		}
		if lines[li].terms == nil {
			lines[li].terms = map[string]bool{} // most lines hold no query term
		}
		lines[li].terms[t] = true
		lines[li].spans = append(lines[li].spans, span{base + s, base + en})
	})
	first, last := bestWindow(lines, idf)
	return render(n, lines[first:last+1])
}

// regionLines lists the non-blank lines of body[start:end].
func (e *Engine) regionLines(n *vault.Note, start, end int) []line {
	out := make([]line, 0, strings.Count(n.Body[start:end], "\n")+1)
	no := n.BodyLine + strings.Count(n.Body[:start], "\n")
	for off := start; off < end; no++ {
		text, _, _ := strings.Cut(n.Body[off:end], "\n")
		if strings.TrimSpace(text) != "" {
			out = append(out, line{start: off, end: off + len(text), no: no, page: n.PageAt(no)})
		}
		off += len(text) + 1
	}
	return out
}

// bestWindow returns the first and last line of the best window.
func bestWindow(lines []line, idf map[string]float64) (int, int) {
	bestScore, bf, bl := -1.0, 0, 0
	for i := range lines {
		seen := map[string]bool{}
		score, size := 0.0, 0
		for j := i; j < len(lines) && j < i+snippetLines; j++ {
			size += lines[j].end - lines[j].start
			if j > i && (size > snippetChars || lines[j].page != lines[i].page) {
				break // a snippet never spans two PDF pages
			}
			for t := range lines[j].terms {
				if !seen[t] {
					seen[t] = true
					score += idf[t] + 1 // +1: an unknown term still shows
				}
			}
			score += 0.01 * float64(len(lines[j].spans))
			if score > bestScore {
				bestScore, bf, bl = score, i, j
			}
		}
	}
	return bf, bl
}

// render joins the window's lines into one line of text, marks matches
// and trims it to about snippetChars around the first match.
func render(n *vault.Note, lines []line) snip {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeLine(&b, n.Body, l)
	}
	text := strings.Join(strings.Fields(b.String()), " ")
	return snip{
		text:      trimAround(text, strings.Index(text, HighlightOpen)),
		lineStart: lines[0].no,
		lineEnd:   lines[len(lines)-1].no,
	}
}

// plain drops the note's own "**" so that only our marks are marks.
func plain(s string) string { return strings.ReplaceAll(s, "**", "") }

func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var out []span
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.start <= out[k].end {
			out[k].end = max(out[k].end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// trimAround cuts s to about snippetChars bytes, keeping the text from a
// little before the first mark, on rune and word boundaries and never
// inside a link, code span or URL.
func trimAround(s string, mark int) string {
	if len(s) <= snippetChars {
		return s
	}
	keep := protected(s)
	from := 0
	if mark > snippetChars/3 {
		from = mark - snippetChars/4
		if sp := strings.IndexByte(s[from:mark], ' '); sp >= 0 {
			from += sp + 1
		}
		for from < len(s) && !utf8.RuneStart(s[from]) {
			from++
		}
		for _, r := range keep {
			if r.start < from && from < r.end {
				from = r.start // show the construct whole rather than cut it
			}
		}
	}
	to := min(len(s), from+snippetChars)
	if to < len(s) {
		if sp := strings.LastIndexByte(s[from:to], ' '); sp > snippetChars/2 {
			to = from + sp
		}
		for to > from && !utf8.RuneStart(s[to]) {
			to--
		}
		for _, r := range keep {
			if r.start < to && to < r.end {
				to = r.start
				if to <= from { // one construct longer than the snippet
					to = r.end
				}
			}
		}
		for to > from && s[to-1] == ' ' {
			to--
		}
	}
	out := s[from:to]
	if strings.Count(out, HighlightOpen)%2 == 1 { // never leave a mark open
		out += HighlightClose
	}
	if from > 0 {
		out = "…" + out
	}
	if to < len(s) {
		out += "…"
	}
	return out
}

// propertiesSnippet shows a note's frontmatter as "key: value; key:
// value" (keys sorted, lists joined with commas), clipped to about
// snippetChars: the snippet of a note whose body is empty.
func propertiesSnippet(fm map[string]any) string {
	keys := slices.Sorted(maps.Keys(fm))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+propertyValue(fm[k]))
	}
	s := strings.Join(parts, "; ")
	if utf8.RuneCountInString(s) <= snippetChars {
		return s
	}
	return string([]rune(s)[:snippetChars]) + "…"
}

func propertyValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []any:
		items := make([]string, len(v))
		for i, x := range v {
			items[i] = propertyValue(x)
		}
		return strings.Join(items, ", ")
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format(time.DateOnly)
		}
		return v.Format(time.RFC3339)
	}
	return fmt.Sprint(v)
}
