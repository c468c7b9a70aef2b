package textsearch

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// newTextMatcher compiles the query for its mode. A literal query is NFC
// (like the bodies) and, unless case-sensitive, case-folded like them.
func newTextMatcher(q Query) (textMatcher, error) {
	if q.Regex {
		return newRegexMatcher(q.Text, q.CaseSensitive)
	}
	query := norm.NFC.String(q.Text)
	if !q.CaseSensitive {
		query = FoldCase(query)
	}
	switch q.Mode {
	case ModeAll:
		return allMatcher{terms: uniqueTerms(query)}, nil
	case ModeAny:
		return anyMatcher{terms: uniqueTerms(query)}, nil
	}
	return phraseMatcher{needle: query}, nil
}

func uniqueTerms(q string) []string {
	terms := strings.Fields(q)
	slices.Sort(terms)
	return slices.Compact(terms)
}

func newRegexMatcher(pattern string, caseSensitive bool) (textMatcher, error) {
	if len(pattern) > MaxRegexBytes {
		return nil, fmt.Errorf("regex is longer than %d bytes", MaxRegexBytes)
	}
	flags := "(?m)"
	if !caseSensitive {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + norm.NFC.String(pattern))
	if err != nil {
		return nil, fmt.Errorf("invalid regex: %w", err)
	}
	if re.MatchString("") {
		return nil, errors.New("regex matches the empty string; it would match every line")
	}
	m := regexMatcher{re: re}
	if tree, err := syntax.Parse(flags+norm.NFC.String(pattern), syntax.Perl); err == nil {
		m.literals = requiredLiterals(tree)
	}
	return m, nil
}

// requiredLiterals returns strings, case-folded like the bodies (see
// FoldCase), one of which occurs in every match of re; nil when none can
// be derived. A note whose folded body holds none of them cannot match.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if lit := safeLiteral(re); lit != "" {
			return []string{lit}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub); shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}

func shortest(lits []string) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// safeLiteral returns the longest run of a literal node's runes whose
// folded form is certain to appear in the folded text of any match. Under
// (?i) a rune matches its whole case-folding orbit; a rune whose orbit
// folds to different strings (k and the Kelvin sign K) breaks the run.
func safeLiteral(re *syntax.Regexp) string {
	fold := re.Flags&syntax.FoldCase != 0
	best, cur := "", []rune{}
	for _, r := range re.Rune {
		if fold && !stableFold(r) {
			cur = cur[:0]
			continue
		}
		cur = append(cur, r)
		if len(string(cur)) > len(best) {
			best = string(cur)
		}
	}
	return FoldCase(best)
}

// stableFold reports whether every case variant of r folds to the same
// string as r.
func stableFold(r rune) bool {
	want := FoldCase(string(r))
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if FoldCase(string(f)) != want {
			return false
		}
	}
	return true
}

// FoldCase lower-cases the letters of s whose lower case has the same
// UTF-8 length, so byte offsets in the result are offsets in s. s is
// returned as is when nothing changes.
func FoldCase(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == size {
				break
			}
			i += size
			continue
		}
		if 'A' <= c && c <= 'Z' {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); r != utf8.RuneError && utf8.RuneLen(l) == size {
			b = utf8.AppendRune(b, l)
		} else {
			b = append(b, s[i:i+size]...) // kept byte for byte
		}
		i += size
	}
	return string(b)
}

// textMatcher finds matching lines. Search always resumes at a line
// start (from), so ^ in a regex and line checks see whole lines.
type textMatcher interface {
	// may is a quick check: false when body cannot match.
	may(body string) bool
	// next returns the byte offset of the first match at or after from
	// (on the first matching line), or -1.
	next(body string, from int, st *scanState) int
	// state returns fresh scratch space for one goroutine.
	state() *scanState
}

// scanState is a goroutine's scratch space: for mode any, the next
// occurrence of each term in the current note (-1: none, -2: unknown).
type scanState struct{ pos []int }

func (st *scanState) reset() {
	for i := range st.pos {
		st.pos[i] = -2
	}
}

// phraseMatcher finds one literal string.
type phraseMatcher struct{ needle string }

func (m phraseMatcher) may(string) bool   { return true }
func (m phraseMatcher) state() *scanState { return &scanState{} }
func (m phraseMatcher) next(body string, from int, _ *scanState) int {
	return indexFrom(body, m.needle, from)
}

// regexMatcher finds an RE2 pattern; literals are for the note filter
// (see requiredLiterals).
type regexMatcher struct {
	re       *regexp.Regexp
	literals []string
}

func (m regexMatcher) may(string) bool   { return true }
func (m regexMatcher) state() *scanState { return &scanState{} }
func (m regexMatcher) next(body string, from int, _ *scanState) int {
	if loc := m.re.FindStringIndex(body[from:]); loc != nil {
		return from + loc[0]
	}
	return -1
}

// allMatcher finds lines holding every term; it reports the earliest
// term on the line.
type allMatcher struct{ terms []string }

func (m allMatcher) state() *scanState { return &scanState{} }

func (m allMatcher) may(body string) bool {
	for _, t := range m.terms {
		if !strings.Contains(body, t) {
			return false
		}
	}
	return true
}

func (m allMatcher) next(body string, from int, _ *scanState) int {
	anchor := m.terms[0]
	for _, t := range m.terms[1:] {
		if len(t) > len(anchor) {
			anchor = t // the longest term is likely the rarest
		}
	}
	for from <= len(body) {
		at := indexFrom(body, anchor, from)
		if at < 0 {
			return -1
		}
		start := strings.LastIndexByte(body[:at], '\n') + 1
		end := len(body)
		if j := strings.IndexByte(body[at:], '\n'); j >= 0 {
			end = at + j
		}
		if first := firstOfAll(body[start:end], m.terms); first >= 0 {
			return start + first
		}
		from = end + 1
	}
	return -1
}

// firstOfAll returns the offset of the earliest term in line when line
// holds every term, else -1.
func firstOfAll(line string, terms []string) int {
	first := len(line)
	for _, t := range terms {
		i := strings.Index(line, t)
		if i < 0 {
			return -1
		}
		first = min(first, i)
	}
	return first
}

// anyMatcher finds lines holding at least one term.
type anyMatcher struct{ terms []string }

func (m anyMatcher) may(string) bool   { return true }
func (m anyMatcher) state() *scanState { return &scanState{pos: make([]int, len(m.terms))} }

func (m anyMatcher) next(body string, from int, st *scanState) int {
	best := -1
	for i, t := range m.terms {
		p := st.pos[i]
		if p == -1 {
			continue // no more occurrences in this note
		}
		if p < from {
			p = indexFrom(body, t, from)
			st.pos[i] = p
		}
		if p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

// indexFrom is strings.Index from byte offset from (-1 when absent).
func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}
