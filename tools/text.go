package tools

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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Modes and limits of obsidian_search_text.
const (
	textModePhrase       = "phrase"
	textModeAll          = "all"
	textModeAny          = "any"
	maxTextLimit         = 200
	defaultTextLimit     = 25
	maxMatchesPerNote    = 100
	defaultMatchesInNote = 5
	maxRegexBytes        = 1000
	lineWindowRunes      = 200
)

// SearchTextInput is the obsidian_search_text request.
type SearchTextInput struct {
	Query             string `json:"query" jsonschema:"Text to find literally (1-4096 characters), or an RE2 regular expression with regex: true."`
	Mode              string `json:"mode,omitempty" jsonschema:"phrase (default): the query as one literal string; all: every whitespace-separated term on the same line; any: at least one term on the line."`
	CaseSensitive     bool   `json:"case_sensitive,omitempty" jsonschema:"Match case exactly (default false)."`
	Regex             bool   `json:"regex,omitempty" jsonschema:"The query is an RE2 regular expression (Go syntax, linear time, at most 1000 bytes; ^ and $ match at line ends); only with mode phrase. Slower than literal search when the pattern has no literal text to look for first."`
	Folder            string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	Limit             int    `json:"limit,omitempty" jsonschema:"Number of notes to return (1-200, default 25)."`
	MaxMatchesPerNote int    `json:"max_matches_per_note,omitempty" jsonschema:"Matching lines listed per note (1-100, default 5); count always has them all."`
}

// SearchTextOutput lists the notes holding the text.
type SearchTextOutput struct {
	Query         string     `json:"query"`
	Mode          string     `json:"mode"`
	CaseSensitive bool       `json:"case_sensitive"`
	Regex         bool       `json:"regex"`
	ScannedNotes  int        `json:"scanned_notes" jsonschema:"Notes (and PDFs) searched: every one under folder."`
	MatchedNotes  int        `json:"matched_notes" jsonschema:"Notes with at least one match, before the cut to limit."`
	TotalMatches  int        `json:"total_matches" jsonschema:"Matching lines over all matched notes."`
	Notes         []TextNote `json:"notes" jsonschema:"Most matching lines first, then by path."`
}

// TextNote is one note with its matching lines.
type TextNote struct {
	Path    string      `json:"path"`
	Title   string      `json:"title"`
	Count   int         `json:"count" jsonschema:"Matching lines in the note."`
	Matches []TextMatch `json:"matches" jsonschema:"The first max_matches_per_note matching lines, in file order."`
}

// TextMatch is one matching line.
type TextMatch struct {
	Line   int    `json:"line" jsonschema:"1-based line in the file (frontmatter lines counted); for a PDF, the line of its extracted text."`
	Column int    `json:"column" jsonschema:"1-based character column of the first match on the line."`
	Page   int    `json:"page,omitempty" jsonschema:"PDF page (PDFs only)."`
	Text   string `json:"text" jsonschema:"The line, cut to about 200 characters around the match (… marks a cut)."`
}

func (s *Server) addSearchText(c *metaCache) {
	in := inputSchema[SearchTextInput]()
	p := in.Properties
	p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(search.MaxQueryRunes)
	p["mode"].Enum, p["mode"].Default = []any{textModePhrase, textModeAll, textModeAny}, jsonRaw(`"phrase"`)
	p["case_sensitive"].Default, p["regex"].Default = jsonRaw("false"), jsonRaw("false")
	setRange(p["limit"], 1, maxTextLimit, defaultTextLimit)
	setRange(p["max_matches_per_note"], 1, maxMatchesPerNote, defaultMatchesInNote)
	addTool(s, &mcp.Tool{
		Name:  "obsidian_search_text",
		Title: "Find exact text",
		Description: "Literal search, like grep, for exact strings the ranked obsidian_search is not for (identifiers, quotes, URLs, code): " +
			"a phrase, all terms on one line, any term, or an RE2 regex; case-insensitive by default. " +
			"Searches the whole text of every note after its frontmatter (code blocks included) and the text of indexed PDFs; " +
			"frontmatter values are searched with obsidian_frontmatter_search. Returns notes with line, column and the matching line.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[SearchTextOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SearchTextInput) (*mcp.CallToolResult, SearchTextOutput, error) {
		out, err := searchText(ctx, c.get(s.engine()), in)
		return nil, out, err
	})
}

// textQuery is a validated obsidian_search_text request.
type textQuery struct {
	in      SearchTextInput
	keep    func(int) bool
	matcher textMatcher
	// folded: search the case-folded bodies. literals (regex only): folded
	// strings one of which every match holds, to skip notes quickly.
	folded   bool
	literals []string
}

// searchText counts the matching lines of every note in the snapshot,
// then renders the best notes' first matches.
func searchText(ctx context.Context, d *metaDerived, in SearchTextInput) (SearchTextOutput, error) {
	snap := d.eng.Snapshot()
	q, err := newTextQuery(snap, in)
	if err != nil {
		return SearchTextOutput{}, err
	}
	notes := snap.Notes
	var folded []string
	if q.folded || len(q.literals) > 0 {
		folded = d.foldedBodies()
	}
	hay := func(i int) string {
		if q.folded {
			return folded[i]
		}
		return notes[i].Body
	}
	counts, scanned, err := countAll(ctx, len(notes), hay, folded, q)
	if err != nil {
		return SearchTextOutput{}, err
	}
	out := SearchTextOutput{Query: q.in.Query, Mode: q.in.Mode, CaseSensitive: q.in.CaseSensitive, Regex: q.in.Regex,
		ScannedNotes: scanned, MatchedNotes: len(counts), Notes: make([]TextNote, 0, min(len(counts), q.in.Limit))}
	for _, c := range counts {
		out.TotalMatches += c.count
	}
	st := q.matcher.state()
	for _, c := range topNotes(counts, q.in.Limit, notes) {
		h := scanNote(hay(c.note), q.matcher, q.in.MaxMatchesPerNote, st)
		out.Notes = append(out.Notes, renderTextNote(notes[c.note], h))
	}
	return out, nil
}

// newTextQuery validates the request and builds its matcher.
func newTextQuery(snap *vault.Snapshot, in SearchTextInput) (textQuery, error) {
	in.Mode = cmp.Or(in.Mode, textModePhrase)
	in.Limit = cmp.Or(in.Limit, defaultTextLimit)
	in.MaxMatchesPerNote = cmp.Or(in.MaxMatchesPerNote, defaultMatchesInNote)
	q := textQuery{in: in, folded: !in.CaseSensitive && !in.Regex}
	switch {
	case strings.TrimSpace(in.Query) == "":
		return q, errors.New("query is empty")
	case !utf8.ValidString(in.Query):
		return q, errors.New("query is not valid UTF-8")
	case utf8.RuneCountInString(in.Query) > search.MaxQueryRunes:
		return q, fmt.Errorf("query is longer than %d characters", search.MaxQueryRunes)
	case in.Mode != textModePhrase && in.Mode != textModeAll && in.Mode != textModeAny:
		return q, fmt.Errorf(`mode must be "phrase", "all" or "any", got %s`, quote(in.Mode))
	case in.Limit < 1 || in.Limit > maxTextLimit:
		return q, fmt.Errorf("limit must be between 1 and %d, got %d", maxTextLimit, in.Limit)
	case in.MaxMatchesPerNote < 1 || in.MaxMatchesPerNote > maxMatchesPerNote:
		return q, fmt.Errorf("max_matches_per_note must be between 1 and %d, got %d", maxMatchesPerNote, in.MaxMatchesPerNote)
	case in.Regex && in.Mode != textModePhrase:
		return q, errors.New(`regex works with mode "phrase" only`)
	}
	keep, err := noteFilter(snap, in.Folder)
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

// renderTextNote turns kept matches into file lines and text.
func renderTextNote(n *vault.Note, h noteHits) TextNote {
	t := TextNote{Path: n.Path, Title: n.Title, Count: h.count, Matches: make([]TextMatch, 0, len(h.lines))}
	for _, l := range h.lines {
		m := TextMatch{Line: n.BodyLine + l.bodyLine - 1, Column: utf8.RuneCountInString(n.Body[l.start:l.at]) + 1,
			Text: lineWindow(n.Body[l.start:l.end], l.at-l.start)}
		if n.Kind == vault.KindPDF {
			m.Page = n.PageAt(m.Line)
		}
		t.Matches = append(t.Matches, m)
	}
	return t
}

// lineWindow returns line, or about lineWindowRunes characters of it
// around byte offset at, with … where it was cut.
func lineWindow(line string, at int) string {
	if utf8.RuneCountInString(line) <= lineWindowRunes {
		return line
	}
	start := at
	for back := 0; start > 0 && back < lineWindowRunes/3; back++ {
		_, size := utf8.DecodeLastRuneInString(line[:start])
		start -= size
	}
	end := start
	for n := 0; end < len(line) && n < lineWindowRunes; n++ {
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
