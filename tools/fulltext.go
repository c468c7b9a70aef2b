package tools

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// FullTextInput is the obsidian_full_text_search request.
type FullTextInput struct {
	Query  string `json:"query" jsonschema:"Words (ORed, ranked by BM25) and \"quoted phrases\"."`
	Folder string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	Tag    string `json:"tag,omitempty" jsonschema:"Only notes with this tag (or one nested under it)."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Number of chunk hits (1-100, default 20)."`
}

// FullTextOutput lists chunk hits of the BM25 index alone.
type FullTextOutput struct {
	Query string `json:"query"`
	// Expression is the FTS5 query the words became.
	Expression string        `json:"expression" jsonschema:"The FTS5 MATCH expression that was run."`
	Total      int           `json:"total_candidates"`
	Hits       []FullTextHit `json:"hits"`
}

// FullTextHit is one chunk.
type FullTextHit struct {
	Path      string  `json:"path"`
	Title     string  `json:"title"`
	Chunk     int     `json:"chunk" jsonschema:"Chunk index within the note (0-based)."`
	LineStart int     `json:"line_start,omitempty"`
	LineEnd   int     `json:"line_end,omitempty"`
	Page      int     `json:"page,omitempty"`
	OCR       bool    `json:"ocr,omitempty" jsonschema:"The page's text was read by OCR from a scanned image (pdf hits only; may hold recognition errors)."`
	Kind      string  `json:"kind"`
	Score     float64 `json:"score" jsonschema:"BM25 score (higher is better)."`
	Snippet   string  `json:"snippet"`
}

const defaultFullTextLimit = 20

// addFullText registers the diagnostic BM25 tool; only with an index.
func (s *Server) addFullText() {
	in := inputSchema[FullTextInput]()
	in.Properties["query"].MinLength, in.Properties["query"].MaxLength = ptr(1), ptr(search.MaxQueryRunes)
	setRange(in.Properties["limit"], 1, search.MaxLimit, defaultFullTextLimit)
	addTool(s, &mcp.Tool{
		Name:         "obsidian_full_text_search",
		Title:        "Full-text search (BM25 only)",
		Description:  "Diagnostic: the persistent index's BM25 signal alone, returning matching chunks (passages) with line ranges or PDF pages. Words are ORed and ranked by BM25; \"quoted phrases\" stay phrases. Prefer obsidian_search for answers.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[FullTextOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in FullTextInput) (*mcp.CallToolResult, FullTextOutput, error) {
		if in.Limit == 0 {
			in.Limit = defaultFullTextLimit
		}
		res, err := s.engine().Search(ctx, search.Request{Query: in.Query, Folder: in.Folder, Tag: in.Tag, Limit: in.Limit,
			Granularity: search.GranularityBlock, Signals: []string{rankers.SignalBM25}})
		if err != nil {
			if errors.Is(err, search.ErrInvalid) {
				return nil, FullTextOutput{}, err
			}
			return nil, FullTextOutput{}, s.internal("obsidian_full_text_search", err)
		}
		if msg := res.SignalErrors[rankers.SignalBM25]; msg != "" {
			return nil, FullTextOutput{}, errors.New("bm25 " + msg)
		}
		out := FullTextOutput{Query: res.Query, Expression: index.MatchExpr(res.Query), Total: res.TotalCandidates, Hits: []FullTextHit{}}
		for _, h := range res.Hits {
			out.Hits = append(out.Hits, FullTextHit{Path: h.Path, Title: h.Title, Chunk: h.Chunk, LineStart: h.LineStart,
				LineEnd: h.LineEnd, Page: h.Page, OCR: h.OCR, Kind: h.Kind, Score: h.Signals[rankers.SignalBM25].Score, Snippet: h.Snippet})
		}
		return nil, out, nil
	})
}
