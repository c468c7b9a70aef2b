// Package textsearch finds exact text in a vault's notes, like grep: a
// phrase, every term on one line, any term, or an RE2 regular expression,
// case-insensitive by default. It reports the notes with the most
// matching lines first, each with its first matches' line, column and
// text.
package textsearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Modes and limits of a query.
const (
	// ModePhrase matches the query as one literal string.
	ModePhrase = "phrase"
	// ModeAll matches lines holding every whitespace-separated term.
	ModeAll = "all"
	// ModeAny matches lines holding at least one term.
	ModeAny = "any"

	MaxLimit              = 200
	DefaultLimit          = 25
	MaxMatchesPerNote     = 100
	DefaultMatchesPerNote = 5
	// MaxRegexBytes caps a regular expression.
	MaxRegexBytes = 1000
	// WindowRunes is about how much of a long line Match.Text keeps.
	WindowRunes = 200
)

// Query is one search.
type Query struct {
	// Text is the literal text (1 to search.MaxQueryRunes characters), or
	// an RE2 regular expression with Regex.
	Text string
	// Mode is ModePhrase ("" too), ModeAll or ModeAny.
	Mode          string
	CaseSensitive bool
	// Regex reads Text as an RE2 regular expression (Go syntax, at most
	// MaxRegexBytes; ^ and $ match at line ends); ModePhrase only.
	Regex bool
	// Folder keeps only notes under this vault-relative folder.
	Folder string
	// Limit is the number of notes to return (1-MaxLimit; 0:
	// DefaultLimit).
	Limit int
	// MaxMatchesPerNote is the matching lines listed per note
	// (1-MaxMatchesPerNote; 0: DefaultMatchesPerNote); Note.Count has them
	// all.
	MaxMatchesPerNote int
}

// Result lists the notes holding the text.
type Result struct {
	// Query is the query as run, defaults filled in.
	Query Query
	// ScannedNotes counts the notes (and PDFs) searched: every one under
	// the folder. MatchedNotes counts those with a match, before the cut
	// to the limit; TotalMatches their matching lines.
	ScannedNotes, MatchedNotes, TotalMatches int
	// Notes are the most matching lines first, then by path.
	Notes []Note
}

// Note is one note with its matching lines.
type Note struct {
	Path, Title string
	// Count is the note's matching lines.
	Count int
	// Matches are the first matching lines, in file order.
	Matches []Match
}

// Match is one matching line.
type Match struct {
	// Line is the 1-based line in the file (frontmatter lines counted);
	// for a PDF, the line of its extracted text.
	Line int
	// Column is the 1-based character column of the first match.
	Column int
	// Page is the PDF page (PDFs only).
	Page int
	// Text is the line, cut to about WindowRunes characters around the
	// match (… marks a cut).
	Text string
}

// Searcher searches the notes of one snapshot. It keeps their case-folded
// bodies, built on the first search that needs them; safe for concurrent
// use.
type Searcher struct {
	snap     *vault.Snapshot
	foldOnce sync.Once
	folded   []string // note id → FoldCase(body), same byte offsets
}

// New returns the index of a snapshot.
func New(snap *vault.Snapshot) *Searcher { return &Searcher{snap: snap} }

// foldedBodies returns every note body with letters lower-cased in place
// (see FoldCase), for case-insensitive search.
func (x *Searcher) foldedBodies() []string {
	x.foldOnce.Do(func() {
		x.folded = make([]string, len(x.snap.Notes))
		for i, n := range x.snap.Notes {
			x.folded[i] = FoldCase(n.Body)
		}
	})
	return x.folded
}

// textQuery is a validated query.
type textQuery struct {
	in      Query
	keep    func(int) bool
	matcher textMatcher
	// folded: search the case-folded bodies. literals (regex only): folded
	// strings one of which every match holds, to skip notes quickly.
	folded   bool
	literals []string
}

// Search counts the matching lines of every note, then renders the
// best notes' first matches. Its errors say what to fix in the query,
// or are the context's.
func (x *Searcher) Search(ctx context.Context, in Query) (*Result, error) {
	snap := x.snap
	q, err := newTextQuery(snap, in)
	if err != nil {
		return nil, err
	}
	notes := snap.Notes
	var folded []string
	if q.folded || len(q.literals) > 0 {
		folded = x.foldedBodies()
	}
	hay := func(i int) string {
		if q.folded {
			return folded[i]
		}
		return notes[i].Body
	}
	counts, scanned, err := countAll(ctx, len(notes), hay, folded, q)
	if err != nil {
		return nil, err
	}
	out := &Result{Query: q.in, ScannedNotes: scanned, MatchedNotes: len(counts), Notes: make([]Note, 0, min(len(counts), q.in.Limit))}
	for _, c := range counts {
		out.TotalMatches += c.count
	}
	st := q.matcher.state()
	for _, c := range topNotes(counts, q.in.Limit, notes) {
		h := scanNote(hay(c.note), q.matcher, q.in.MaxMatchesPerNote, st)
		out.Notes = append(out.Notes, renderNote(notes[c.note], h))
	}
	return out, nil
}

// newTextQuery validates the request and builds its matcher.
func newTextQuery(snap *vault.Snapshot, in Query) (textQuery, error) {
	in.Mode = cmp.Or(in.Mode, ModePhrase)
	in.Limit = cmp.Or(in.Limit, DefaultLimit)
	in.MaxMatchesPerNote = cmp.Or(in.MaxMatchesPerNote, DefaultMatchesPerNote)
	q := textQuery{in: in, folded: !in.CaseSensitive && !in.Regex}
	switch {
	case strings.TrimSpace(in.Text) == "":
		return q, errors.New("query is empty")
	case !utf8.ValidString(in.Text):
		return q, errors.New("query is not valid UTF-8")
	case utf8.RuneCountInString(in.Text) > search.MaxQueryRunes:
		return q, fmt.Errorf("query is longer than %d characters", search.MaxQueryRunes)
	case in.Mode != ModePhrase && in.Mode != ModeAll && in.Mode != ModeAny:
		return q, fmt.Errorf(`mode must be "phrase", "all" or "any", got %s`, quote(in.Mode))
	case in.Limit < 1 || in.Limit > MaxLimit:
		return q, fmt.Errorf("limit must be between 1 and %d, got %d", MaxLimit, in.Limit)
	case in.MaxMatchesPerNote < 1 || in.MaxMatchesPerNote > MaxMatchesPerNote:
		return q, fmt.Errorf("max_matches_per_note must be between 1 and %d, got %d", MaxMatchesPerNote, in.MaxMatchesPerNote)
	case in.Regex && in.Mode != ModePhrase:
		return q, errors.New(`regex works with mode "phrase" only`)
	}
	keep, err := search.FolderFilter(snap, in.Folder)
	if err != nil {
		return q, err
	}
	q.keep = keep
	q.matcher, err = newTextMatcher(in)
	if rm, ok := q.matcher.(regexMatcher); ok {
		q.literals = rm.literals
	}
	return q, err
}

// noteCount is how many lines of a note match.
type noteCount struct{ note, count int }

// noteHits is one note's matches: count lines, the first few kept.
type noteHits struct {
	count int
	lines []lineHit
}

// lineHit is a kept match: the line's byte range in the body, the match
// offset and the 1-based body line.
type lineHit struct {
	start, end, at, bodyLine int
}

// countAll counts the matching lines of every kept note, in parallel.
func countAll(ctx context.Context, n int, hay func(int) string, folded []string, q textQuery) ([]noteCount, int, error) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/512))
	parts := make([][]noteCount, workers)
	scanned := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := q.matcher.state()
			for i := w; i < n; i += workers {
				if (i/workers)%256 == 0 && ctx.Err() != nil {
					return
				}
				if q.keep != nil && !q.keep(i) {
					continue
				}
				scanned[w]++
				if len(q.literals) > 0 && !containsAny(folded[i], q.literals) {
					continue
				}
				if c := scanNote(hay(i), q.matcher, 0, st).count; c > 0 {
					parts[w] = append(parts[w], noteCount{i, c})
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var all []noteCount
	total := 0
	for w := range workers {
		all = append(all, parts[w]...)
		total += scanned[w]
	}
	return all, total, nil
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// topNotes returns the k notes with the most matching lines, ties by
// path, in that order (a bounded insertion: no sort of every note).
func topNotes(counts []noteCount, k int, notes []*vault.Note) []noteCount {
	better := func(a, b noteCount) bool {
		return a.count > b.count || a.count == b.count && notes[a.note].Path < notes[b.note].Path
	}
	top := make([]noteCount, 0, k+1)
	for _, c := range counts {
		if len(top) == k && !better(c, top[k-1]) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, c, func(e, c noteCount) int {
			if better(e, c) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, i, c)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// scanNote counts the matching lines of one body and keeps the first
// keep (0: count only). Nothing is allocated until a match is kept.
func scanNote(body string, m textMatcher, keep int, st *scanState) noteHits {
	var h noteHits
	if !m.may(body) {
		return h
	}
	st.reset()
	from, line, counted := 0, 1, 0
	for from <= len(body) {
		at := m.next(body, from, st)
		if at < 0 {
			break
		}
		end := strings.IndexByte(body[at:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += at
		}
		h.count++
		if len(h.lines) < keep {
			start := strings.LastIndexByte(body[:at], '\n') + 1
			line += strings.Count(body[counted:start], "\n")
			counted = start
			h.lines = append(h.lines, lineHit{start: start, end: end, at: at, bodyLine: line})
		}
		from = end + 1
	}
	return h
}

// renderNote turns kept matches into file lines and text.
func renderNote(n *vault.Note, h noteHits) Note {
	t := Note{Path: n.Path, Title: n.Title, Count: h.count, Matches: make([]Match, 0, len(h.lines))}
	for _, l := range h.lines {
		m := Match{Line: n.BodyLine + l.bodyLine - 1, Column: utf8.RuneCountInString(n.Body[l.start:l.at]) + 1,
			Text: lineWindow(n.Body[l.start:l.end], l.at-l.start)}
		if n.Kind == vault.KindPDF {
			m.Page = n.PageAt(m.Line)
		}
		t.Matches = append(t.Matches, m)
	}
	return t
}

// lineWindow returns line, or about WindowRunes characters of it
// around byte offset at, with … where it was cut.
func lineWindow(line string, at int) string {
	if utf8.RuneCountInString(line) <= WindowRunes {
		return line
	}
	start := at
	for back := 0; start > 0 && back < WindowRunes/3; back++ {
		_, size := utf8.DecodeLastRuneInString(line[:start])
		start -= size
	}
	end := start
	for n := 0; end < len(line) && n < WindowRunes; n++ {
		_, size := utf8.DecodeRuneInString(line[end:])
		end += size
	}
	out := line[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(line) {
		out += "…"
	}
	return out
}

// quote is %q of s cut to maxQuoted bytes (on a rune boundary), saying
// how much was left out: an error must not echo a huge argument whole.
func quote(s string) string {
	const maxQuoted = 200
	if len(s) <= maxQuoted {
		return fmt.Sprintf("%q", s)
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes in all)", s[:cut], len(s))
}
