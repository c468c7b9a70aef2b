package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/textsearch"
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
	p["mode"].Enum, p["mode"].Default = []any{textsearch.ModePhrase, textsearch.ModeAll, textsearch.ModeAny}, jsonRaw(`"phrase"`)
	p["case_sensitive"].Default, p["regex"].Default = jsonRaw("false"), jsonRaw("false")
	setRange(p["limit"], 1, textsearch.MaxLimit, textsearch.DefaultLimit)
	setRange(p["max_matches_per_note"], 1, textsearch.MaxMatchesPerNote, textsearch.DefaultMatchesPerNote)
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
		out, err := searchText(ctx, c.get(s.engine()).textIndex(), in)
		return nil, out, err
	})
}

// searchText maps an obsidian_search_text request onto the text index.
func searchText(ctx context.Context, x *textsearch.Searcher, in SearchTextInput) (SearchTextOutput, error) {
	r, err := x.Search(ctx, textsearch.Query{Text: in.Query, Mode: in.Mode, CaseSensitive: in.CaseSensitive, Regex: in.Regex,
		Folder: in.Folder, Limit: in.Limit, MaxMatchesPerNote: in.MaxMatchesPerNote})
	if err != nil {
		return SearchTextOutput{}, err
	}
	out := SearchTextOutput{Query: r.Query.Text, Mode: r.Query.Mode, CaseSensitive: r.Query.CaseSensitive, Regex: r.Query.Regex,
		ScannedNotes: r.ScannedNotes, MatchedNotes: r.MatchedNotes, TotalMatches: r.TotalMatches, Notes: make([]TextNote, len(r.Notes))}
	for i, n := range r.Notes {
		t := TextNote{Path: n.Path, Title: n.Title, Count: n.Count, Matches: make([]TextMatch, len(n.Matches))}
		for j, m := range n.Matches {
			t.Matches[j] = TextMatch{Line: m.Line, Column: m.Column, Page: m.Page, Text: m.Text}
		}
		out.Notes[i] = t
	}
	return out, nil
}
