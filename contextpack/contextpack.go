// Package contextpack assembles a context bundle for an assistant: the
// notes a search ranks best for a query, each with its best passage
// widened as a token budget allows, and the lines of notes linking to
// them, as one Markdown document that never exceeds the budget.
package contextpack

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of a request.
const (
	MinBudget     = 256
	MaxBudget     = 32000
	DefaultBudget = 4000
	MaxNotes      = 50
	DefaultNotes  = 8
)

// Layout limits, not tuning: they keep the bundle readable.
const (
	// queryRunes caps the query as echoed in the bundle's title.
	queryRunes = 200
	// linkLineRunes caps a linking line.
	linkLineRunes = 160
	// fenceReserve is kept per passage to close a code fence it cuts.
	fenceReserve = 2
)

// ErrInvalid marks a request the caller must fix; the message says how.
// A search.ErrInvalid from the search is passed on as it is.
var ErrInvalid = errors.New("invalid context pack request")

// ErrInternal marks a failure that is not the caller's: the search
// failed, or the bundle came out over its budget.
var ErrInternal = errors.New("context pack failed")

// packError carries a message as it is while matching a sentinel.
type packError struct {
	sentinel error
	err      error
}

func (e *packError) Error() string   { return e.err.Error() }
func (e *packError) Unwrap() []error { return []error{e.sentinel, e.err} }

func invalidf(format string, args ...any) error {
	return &packError{sentinel: ErrInvalid, err: fmt.Errorf(format, args...)}
}

func internal(err error) error { return &packError{sentinel: ErrInternal, err: err} }

// Request asks for a bundle.
type Request struct {
	// Query is what the bundle is for (see search.Request.Query).
	Query string
	// BudgetTokens is the bundle's token budget (MinBudget-MaxBudget; 0:
	// DefaultBudget), estimated by Tokens.
	BudgetTokens int
	// Folder keeps only notes under this vault-relative folder.
	Folder string
	// NoBacklinks leaves out the notes linking to the included ones.
	NoBacklinks bool
	// MaxNotes is the most notes to include (1-MaxNotes; 0: DefaultNotes).
	MaxNotes int
	// Granularity is search.GranularityNote ("" too: each note's best
	// passage widened with its surroundings) or search.GranularityBlock
	// (up to rankers.PackBlocksPerNote best passages per note).
	Granularity string
}

// Pack is a bundle and what it holds.
type Pack struct {
	Query           string
	BudgetTokens    int
	EstimatedTokens int // Tokens(Bundle), never above BudgetTokens
	// Bundle is Markdown: # Context for, ## Top notes (one ### section per
	// note: path, hit rank and score, line range or PDF page, passage),
	// ## Backlinks.
	Bundle string
	// Included lists what the bundle holds, in order.
	Included []Item
	// Truncated reports the budget cut something: a passage (see
	// Item.Trimmed), a note or a backlink (see Skipped).
	Truncated bool
	// Skipped lists the hits and backlinks left out, and why.
	Skipped []Skipped
}

// Item is one note or backlink in the bundle.
type Item struct {
	Path, Title string
	// Reason is "hit #n, score s" (the note's search rank and fused
	// score; in block mode those of its best passage) or "backlink of
	// PATH".
	Reason string
	// Page is the PDF page the passage starts on (PDFs only).
	Page int
	// LineStart and LineEnd are the file lines (1-based) of the
	// passage(s) or of the linking line.
	LineStart, LineEnd int
	// Tokens is the estimate of this item's part of the bundle.
	Tokens int
	// Trimmed reports the best passage itself was cut to fit.
	Trimmed bool
}

// Skipped is a hit or backlink the bundle leaves out.
type Skipped struct {
	Path, Reason string
}

// count is the size of a text for the token estimate.
type count struct{ runes, words int }

// tokens estimates tokens as max(⌈runes/4⌉, ⌈1.3 × words⌉), a CJK
// character counting as a word. Characters/4 alone undercounts prose
// (≈1.3 tokens per English word) and words alone undercounts paths, code
// and URLs; the larger of the two errs on the safe side. The estimate of a
// concatenation never exceeds the sum of the parts' estimates, so a
// bundle assembled within the budget part by part stays within it.
func (c count) tokens() int { return max((c.runes+3)/4, (c.words*13+9)/10) }

func countText(s string) count {
	var c count
	inWord := false
	for _, r := range s {
		c.runes++
		switch {
		case unicode.IsSpace(r):
			inWord = false
		case analysis.IsCJK(r):
			c.words++
			inWord = false
		case !inWord:
			c.words++
			inWord = true
		}
	}
	return c
}

// Tokens estimates the tokens of s as max(⌈characters/4⌉, ⌈1.3 ×
// words⌉), a CJK character counting as a word. The estimate of a
// concatenation never exceeds the sum of the parts' estimates.
func Tokens(s string) int { return countText(s).tokens() }

// packCandidate is a hit to pack: a note and the passages (anchors) that
// made it a hit.
type packCandidate struct {
	note    int
	rank    int
	score   float64
	anchors []packAnchor
}

// packAnchor is a passage to start from: the lines that matched (lo..hi)
// inside the chunk holding them (blo..bhi); body-line indexes.
type packAnchor struct{ lo, hi, blo, bhi int }

// packRange is an inclusive range of body lines; cut, when set, replaces
// the last line (its head, with "…" and the newline).
type packRange struct {
	lo, hi int
	cut    string
}

// packer assembles one bundle.
type packer struct {
	eng      *search.Engine
	snap     *vault.Snapshot
	budget   int
	used     int
	block    bool
	out      Pack
	sections []string
}

// Build searches e for req.Query and packs the best notes into a bundle
// within the budget. Its errors match ErrInvalid or search.ErrInvalid
// (the request must change), ErrInternal, or are the context's.
func Build(ctx context.Context, e *search.Engine, req Request) (*Pack, error) {
	budget, maxNotes, err := packArgs(req)
	if err != nil {
		return nil, err
	}
	block := req.Granularity == search.GranularityBlock
	limit := maxNotes
	if block {
		limit = min(search.MaxLimit, rankers.PackBlocksPerNote*maxNotes)
	}
	res, err := e.Search(ctx, search.Request{Query: req.Query, Folder: req.Folder, Limit: limit,
		Granularity: req.Granularity, GraphBoost: true})
	if err != nil {
		if errors.Is(err, search.ErrInvalid) {
			return nil, err
		}
		return nil, internal(err)
	}
	p := &packer{eng: e, snap: e.Snapshot(), budget: budget, block: block}
	p.out = Pack{Query: res.Query, BudgetTokens: budget, Included: []Item{}, Skipped: []Skipped{}}
	cands := p.candidates(ctx, res, maxNotes)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.pack(cands, !req.NoBacklinks)
	p.out.Bundle = strings.Join(p.sections, "")
	p.out.EstimatedTokens = Tokens(p.out.Bundle)
	if p.out.EstimatedTokens > budget { // cannot happen: every part was counted
		return nil, internal(fmt.Errorf("bundle of %d tokens over the budget of %d", p.out.EstimatedTokens, budget))
	}
	return &p.out, nil
}

func packArgs(req Request) (budget, maxNotes int, err error) {
	budget, maxNotes = req.BudgetTokens, req.MaxNotes
	if budget == 0 {
		budget = DefaultBudget
	}
	if budget < MinBudget || budget > MaxBudget {
		return 0, 0, invalidf("budget_tokens must be between %d and %d, got %d", MinBudget, MaxBudget, req.BudgetTokens)
	}
	if maxNotes == 0 {
		maxNotes = DefaultNotes
	}
	if maxNotes < 1 || maxNotes > MaxNotes {
		return 0, 0, invalidf("max_notes must be between 1 and %d, got %d", MaxNotes, req.MaxNotes)
	}
	return budget, maxNotes, nil
}

// candidates turns search hits into notes with anchors: one per note hit
// (the chunk of its snippet), or up to rankers.PackBlocksPerNote chunk hits per
// note in block mode, for at most maxNotes notes in rank order.
func (p *packer) candidates(ctx context.Context, res *search.Result, maxNotes int) []packCandidate {
	var out []packCandidate
	at := map[int]int{} // note → index in out
	for r, h := range res.Hits {
		k, seen := at[h.Note]
		if !seen {
			if len(out) == maxNotes {
				continue
			}
			k = len(out)
			at[h.Note] = k
			out = append(out, packCandidate{note: h.Note, rank: r + 1, score: h.Score})
		}
		if len(out[k].anchors) < rankers.PackBlocksPerNote {
			if a, ok := p.anchor(ctx, h, res.Query); ok {
				out[k].anchors = append(out[k].anchors, a)
			}
		}
	}
	return out
}

// anchor finds the passage of a hit: the chunk it stands for (see
// search.Engine.HitChunk), narrowed to the snippet's lines when they lie
// inside it.
func (p *packer) anchor(ctx context.Context, h search.Hit, query string) (packAnchor, bool) {
	n := p.snap.Notes[h.Note]
	c, ok := p.eng.HitChunk(ctx, h, query)
	if !ok || c.Start == c.End {
		return packAnchor{}, false
	}
	lo, hi := 0, 0
	if h.Chunk == rankers.NoChunk && h.LineStart > 0 {
		lo, hi = h.LineStart-n.BodyLine, h.LineEnd-n.BodyLine
	}
	a := packAnchor{lo: lo, hi: hi, blo: c.LineStart - n.BodyLine, bhi: c.LineEnd - n.BodyLine}
	if h.LineStart == 0 || h.Chunk != rankers.NoChunk || a.lo < a.blo || a.hi > a.bhi || a.lo > a.hi {
		a.lo, a.hi = a.blo, a.bhi // the whole chunk is the match
	}
	return a, true
}

// add appends a part of the bundle and charges it.
func (p *packer) add(s string) int {
	t := Tokens(s)
	p.sections = append(p.sections, s)
	p.used += t
	return t
}

// pack lays out the bundle: title, the notes (each with a share of what
// is left, weighted 1/√position so better hits get more room and unused
// room flows down), then backlinks in the room kept for them plus any
// left over.
func (p *packer) pack(cands []packCandidate, backlinks bool) {
	p.add("# Context for: " + oneLine(p.out.Query, queryRunes) + "\n\n")
	if len(cands) == 0 {
		p.add("_No notes matched._\n")
		return
	}
	p.add("## Top notes\n\n")
	var links [][]packLink
	reserve := 0
	if backlinks {
		links = make([][]packLink, len(cands))
		want := Tokens("## Backlinks\n\n")
		for i, c := range cands {
			links[i] = p.backlinks(c.note)
			for _, l := range links[i] {
				want += l.tokens
			}
		}
		if want > Tokens("## Backlinks\n\n") {
			reserve = min(want, p.budget/rankers.PackBacklinkShare)
		}
	}
	weights := make([]float64, len(cands))
	for i := range weights {
		weights[i] = 1 / math.Sqrt(float64(i+1))
	}
	var packed []int
	for i, c := range cands {
		left := p.budget - reserve - p.used
		var rest float64
		for _, w := range weights[i:] {
			rest += w
		}
		room := int(float64(left) * weights[i] / rest)
		if ok := p.note(c, max(room, min(left, rankers.PackMinPassage+p.headerCost(c)))); ok {
			packed = append(packed, i)
		}
	}
	if backlinks {
		p.addBacklinks(cands, packed, links)
	}
}

// packDoc is a note's body as lines with their token costs.
type packDoc struct {
	n       *vault.Note
	lines   []string
	cost    []int  // tokens of the line with its newline (and PDF page marker)
	page    []int  // PDF page starting at the line (0: none)
	heading []bool // the line is a heading
}

func newPackDoc(n *vault.Note) *packDoc {
	d := &packDoc{n: n, lines: strings.Split(n.Body, "\n")}
	d.cost = make([]int, len(d.lines))
	d.page = make([]int, len(d.lines))
	d.heading = make([]bool, len(d.lines))
	for _, h := range n.Headings {
		if i := h.Line - n.BodyLine; i >= 0 && i < len(d.lines) {
			d.heading[i] = true
		}
	}
	for _, pg := range n.Pages {
		if i := pg.Line - n.BodyLine; i >= 0 && i < len(d.lines) {
			d.page[i] = pg.Number
		}
	}
	for i, l := range d.lines {
		c := countText(l)
		c.runes++ // the newline
		d.cost[i] = c.tokens()
		if d.page[i] > 0 {
			d.cost[i] += Tokens(pageMarker(d.page[i]))
		}
	}
	return d
}

func pageMarker(page int) string { return "[page: " + strconv.Itoa(page) + "] " }

// lastLine is the file line of a note body's last line.
func lastLine(n *vault.Note) int { return n.BodyLine + strings.Count(n.Body, "\n") }

// packSeparator stands between two passages of one note.
const packSeparator = "[…]\n"

// headerCost is an upper bound of the section header's tokens (line
// numbers at their widest).
func (p *packer) headerCost(c packCandidate) int {
	n := p.snap.Notes[c.note]
	wide := lastLine(n) + 1
	ranges := make([]packRange, max(1, len(c.anchors)))
	for i := range ranges {
		ranges[i] = packRange{lo: wide, hi: wide}
	}
	return Tokens(p.header(n, c, ranges, wide, wide))
}

// header is a note section's title and facts line.
func (p *packer) header(n *vault.Note, c packCandidate, ranges []packRange, lastLine, page int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n`%s` · hit #%d · score %s · ", oneLine(n.Title, queryRunes), n.Path, c.rank, formatScore(c.score))
	if n.Kind == vault.KindPDF {
		fmt.Fprintf(&b, "page %d\n\n", page)
		return b.String()
	}
	b.WriteString("lines ")
	for i, r := range ranges {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d–%d", r.lo, r.hi)
	}
	fmt.Fprintf(&b, " of %d\n\n", lastLine)
	return b.String()
}

func formatScore(s float64) string { return strconv.FormatFloat(s, 'f', 5, 64) }

// note packs one candidate's section in at most room tokens; false when
// it does not fit (or has no text).
func (p *packer) note(c packCandidate, room int) bool {
	n := p.snap.Notes[c.note]
	if len(c.anchors) == 0 {
		p.skip(n.Path, "no text to quote")
		return false
	}
	// Reserved beside the lines: the header, the section's final newline,
	// and per passage a separator, a fence closer and a PDF page marker.
	perPassage := fenceReserve + Tokens(packSeparator)
	if n.Kind == vault.KindPDF {
		perPassage += Tokens(pageMarker(len(n.Pages) + 1))
	}
	avail := room - p.headerCost(c) - 1 - len(c.anchors)*perPassage
	ranges, texts, trimmed, empty := p.passages(newPackDoc(n), c.anchors, avail)
	if empty {
		p.skip(n.Path, "no text to quote")
		return false
	}
	if len(ranges) == 0 {
		p.skip(n.Path, "over budget")
		p.out.Truncated = true
		return false
	}
	fileRanges := make([]packRange, len(ranges))
	for i, r := range ranges {
		fileRanges[i] = packRange{lo: r.lo + n.BodyLine, hi: r.hi + n.BodyLine}
	}
	firstPage := n.PageAt(fileRanges[0].lo)
	text := p.header(n, c, fileRanges, lastLine(n), firstPage) + strings.Join(texts, packSeparator) + "\n"
	item := Item{Path: n.Path, Title: n.Title, Reason: fmt.Sprintf("hit #%d, score %s", c.rank, formatScore(c.score)),
		Tokens: p.add(text), Trimmed: trimmed}
	if n.Kind == vault.KindPDF {
		item.Page = firstPage
	} else {
		item.LineStart, item.LineEnd = fileRanges[0].lo, fileRanges[len(fileRanges)-1].hi
	}
	p.out.Included = append(p.out.Included, item)
	p.out.Truncated = p.out.Truncated || trimmed
	return true
}

func (p *packer) skip(path, reason string) {
	p.out.Skipped = append(p.out.Skipped, Skipped{Path: path, Reason: reason})
}

// passages grows each anchor into a line range within avail tokens (split
// evenly between anchors), merges ranges that touch, and renders them.
// trimmed reports an anchor's own lines cut for room; empty, that the
// anchors hold no text at all.
func (p *packer) passages(d *packDoc, anchors []packAnchor, avail int) (ranges []packRange, texts []string, trimmed, empty bool) {
	if avail < 1 {
		return nil, nil, true, false
	}
	share := avail / len(anchors)
	empty = true
	for _, a := range anchors {
		bounds := packRange{lo: a.blo, hi: a.bhi}
		if !p.block {
			bounds = packRange{lo: 0, hi: len(d.lines) - 1}
		}
		r, full := d.grow(a, bounds, share)
		trimmed = trimmed || !full
		empty = empty && full && r.hi < r.lo
		if r.hi >= r.lo {
			ranges = append(ranges, r)
		}
	}
	ranges = mergeRanges(ranges)
	texts = make([]string, len(ranges))
	for i, r := range ranges {
		texts[i] = d.render(r)
	}
	return ranges, texts, trimmed, empty
}

// grow widens an anchor line by line within avail tokens: first the
// matching lines in order, then alternately the next and the previous
// line inside the anchor's chunk, then (note granularity) inside bounds.
// full reports every matching line fitted.
func (d *packDoc) grow(a packAnchor, bounds packRange, avail int) (packRange, bool) {
	r := packRange{lo: a.lo, hi: a.lo - 1}
	used := 0
	for i := a.lo; i <= a.hi; i++ {
		if used+d.cost[i] > avail {
			if cut := d.cutLine(i, avail-used); cut != "" {
				r.hi, r.cut = i, cut // the head of the line that does not fit
			}
			return d.trimBlank(r), false
		}
		used += d.cost[i]
		r.hi = i
	}
	for _, b := range []packRange{{lo: max(a.blo, bounds.lo), hi: min(a.bhi, bounds.hi)}, bounds} {
		for down, up := true, true; down || up; {
			if down = down && r.hi+1 <= b.hi && used+d.cost[r.hi+1] <= avail; down {
				r.hi++
				used += d.cost[r.hi]
			}
			if up = up && r.lo-1 >= b.lo && used+d.cost[r.lo-1] <= avail; up {
				r.lo--
				used += d.cost[r.lo]
			}
		}
	}
	return d.trimBlank(r), true
}

// trimBlank drops blank lines at both ends of a range, and headings at
// its end (a heading without its text says nothing).
func (d *packDoc) trimBlank(r packRange) packRange {
	for r.lo <= r.hi && strings.TrimSpace(d.lines[r.lo]) == "" {
		r.lo++
	}
	for r.hi > r.lo && (d.heading[r.hi] || r.cut == "" && strings.TrimSpace(d.lines[r.hi]) == "") {
		r.hi--
		r.cut = ""
	}
	return r
}

// render joins a range's lines, with PDF page markers, closing a code
// fence left open.
func (d *packDoc) render(r packRange) string {
	var b strings.Builder
	fences := 0
	for i := r.lo; i <= r.hi; i++ {
		switch {
		case d.page[i] > 0:
			b.WriteString(pageMarker(d.page[i]))
		case i == r.lo && d.n.Kind == vault.KindPDF:
			b.WriteString(pageMarker(d.n.PageAt(i + d.n.BodyLine)))
		}
		if i == r.hi && r.cut != "" {
			b.WriteString(r.cut)
		} else {
			b.WriteString(d.lines[i])
			b.WriteByte('\n')
		}
		if t := strings.TrimSpace(d.lines[i]); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fences++
		}
	}
	if fences%2 == 1 {
		b.WriteString("```\n")
	}
	return b.String()
}

// cutLine keeps as many leading words of line i as fit in avail tokens
// (with the line's page marker), then " …" and a newline; "" when not
// even one word fits.
func (d *packDoc) cutLine(i, avail int) string {
	if d.page[i] > 0 {
		avail -= Tokens(pageMarker(d.page[i]))
	}
	line := d.lines[i]
	fits := func(k int) (string, bool) {
		s := cutRunes(line, k) + " …\n"
		return s, Tokens(s) <= avail
	}
	lo, hi := 0, utf8.RuneCountInString(line)
	for lo < hi { // the longest head that fits
		mid := (lo + hi + 1) / 2
		if _, ok := fits(mid); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	s, _ := fits(lo)
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return "" // punctuation alone quotes nothing
	}
	return s
}

// cutRunes is s cut to k runes, back to a word boundary when there is one.
func cutRunes(s string, k int) string {
	i := 0
	for j := range s {
		if i == k {
			s = s[:j]
			break
		}
		i++
	}
	if sp := strings.LastIndexFunc(s, unicode.IsSpace); sp > len(s)/2 {
		s = s[:sp]
	}
	if open := strings.LastIndex(s, "[["); open > strings.LastIndex(s, "]]") {
		s = s[:open] // never leave half a wikilink
	}
	return strings.TrimSpace(s)
}

func mergeRanges(rs []packRange) []packRange {
	if len(rs) < 2 {
		return rs
	}
	sortRanges(rs)
	out := rs[:1]
	for _, r := range rs[1:] {
		if last := &out[len(out)-1]; r.lo <= last.hi+1 && last.cut == "" && r.hi >= last.hi {
			last.hi, last.cut = r.hi, r.cut
			continue
		}
		out = append(out, r)
	}
	return out
}

func sortRanges(rs []packRange) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].lo < rs[j-1].lo; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// oneLine collapses whitespace and cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return cutRunes(s, n-1) + "…"
}

// packLink is one backlink line.
type packLink struct {
	from   int
	line   int
	text   string
	tokens int
}

// backlinks lists the first link from each of up to rankers.PackBacklinksPerNote
// linking notes, with the linking line; a final line counts the rest.
func (p *packer) backlinks(note int) []packLink {
	target := p.snap.Notes[note]
	name := target.Name() // what a wikilink to it says
	if target.Kind == vault.KindPDF {
		name = path.Base(target.Path)
	}
	var out []packLink
	last, more := -1, 0
	for _, e := range p.eng.Backlinks(note) {
		if e.From == last {
			continue
		}
		last = e.From
		if len(out) == rankers.PackBacklinksPerNote {
			more++
			continue
		}
		from := p.snap.Notes[e.From]
		l := from.Links[e.Link]
		text := fmt.Sprintf("- `%s` → [[%s]] (L%d): %s\n", from.Path, name, l.Line, linkingLine(from, l))
		out = append(out, packLink{from: e.From, line: l.Line, text: text, tokens: Tokens(text)})
	}
	if more > 0 {
		text := fmt.Sprintf("- … and %d more notes link to [[%s]]\n", more, name)
		out = append(out, packLink{from: -1, text: text, tokens: Tokens(text)})
	}
	return out
}

// linkingLine is the line holding a link, whitespace collapsed, cut
// around the link to linkLineRunes.
func linkingLine(n *vault.Note, l vault.Link) string {
	i := l.Line - n.BodyLine
	if i < 0 { // a link in the frontmatter: its property, not a line
		if l.Property != "" {
			return l.Property + ": " + l.Raw
		}
		return ""
	}
	line := ""
	for k, rest := 0, n.Body; k <= i; k++ {
		line, rest, _ = strings.Cut(rest, "\n")
		if k < i && rest == "" {
			return l.Raw
		}
	}
	line = strings.Join(strings.Fields(line), " ")
	if utf8.RuneCountInString(line) <= linkLineRunes {
		return line
	}
	at := strings.Index(line, l.Raw)
	if at < 0 {
		at = 0
	}
	start := max(0, utf8.RuneCountInString(line[:at])-linkLineRunes/3)
	runes := []rune(line)
	end := min(len(runes), start+linkLineRunes)
	s := string(runes[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(runes) {
		s += "…"
	}
	return s
}

// addBacklinks writes the backlink lines of the packed notes while they
// fit.
func (p *packer) addBacklinks(cands []packCandidate, packed []int, links [][]packLink) {
	head := Tokens("## Backlinks\n\n")
	started := false
	for _, i := range packed {
		target := p.snap.Notes[cands[i].note].Path
		for _, l := range links[i] {
			need := l.tokens
			if !started {
				need += head
			}
			if p.used+need > p.budget {
				p.out.Truncated = true
				if l.from >= 0 {
					p.skip(p.snap.Notes[l.from].Path, "backlink of "+target+": over budget")
				}
				continue
			}
			if !started {
				p.add("## Backlinks\n\n")
				started = true
			}
			if l.from < 0 {
				p.add(l.text)
				continue
			}
			from := p.snap.Notes[l.from]
			p.out.Included = append(p.out.Included, Item{Path: from.Path, Title: from.Title,
				Reason: "backlink of " + target, LineStart: l.line, LineEnd: l.line, Tokens: p.add(l.text)})
		}
	}
}
