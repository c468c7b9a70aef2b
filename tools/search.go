package tools

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// SearchInput is the obsidian_search request.
type SearchInput struct {
	Query             string         `json:"query" jsonschema:"What to look for: words, a phrase or a question (1-4096 characters)."`
	Folder            string         `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder, e.g. Projects/2026."`
	Limit             int            `json:"limit,omitempty" jsonschema:"Number of hits to return (1-100, default 10)."`
	MinSignals        int            `json:"min_signals,omitempty" jsonschema:"Only hits found by at least this many signals (1-3, default 1). Only signals with a weight above 0 count: a zero-weight signal is shown in per_signal but never fused or counted."`
	EmbeddingModel    string         `json:"embedding_model,omitempty" jsonschema:"Embedding model the caller expects; must match the one the embeddings were built with."`
	Granularity       string         `json:"granularity,omitempty" jsonschema:"note (default): one hit per note; block: hits are passages (chunks) with line ranges."`
	GraphBoost        *bool          `json:"graph_boost,omitempty" jsonschema:"Let notes linked from other top hits move up, within bounds (default true)."`
	Rerank            *bool          `json:"rerank,omitempty" jsonschema:"Re-order the top hits with the server's cross-encoder reranker (default: on when the server was started with --rerank). Its rank and score show in per_signal.rerank."`
	FilterFrontmatter map[string]any `json:"filter_frontmatter,omitempty" jsonschema:"Keep notes whose frontmatter matches every key. A value is a string, number, boolean or an array of those (any of them). A note whose value is a list matches by membership; strings compare case-insensitively; a [[link]] in a value also matches the linked note's name or path (\"Jazz\" matches \"[[Jazz]]\"); a note without the key is excluded."`
	RecencyWeight     *float64       `json:"recency_weight,omitempty" jsonschema:"Blend file freshness into the score (0-1; default: the server's --recency-weight, normally 0). Recency halves every --stale-days (default 365) days. score = (1 - recency_weight - importance_weight) * relevance + recency_weight * recency + importance_weight * importance; the two weights may sum to at most 1."`
	ImportanceWeight  *float64       `json:"importance_weight,omitempty" jsonschema:"Blend the frontmatter importance (0-10; missing or invalid counts as 5) into the score (0-1, default 0). See recency_weight."`
	Types             []string       `json:"types,omitempty" jsonschema:"Result types to return: note, memory (a note with frontmatter type: memory). Default both."`
	IncludeExcluded   bool           `json:"include_excluded,omitempty" jsonschema:"Also search the notes Obsidian keeps out of its own search: its Excluded files setting and the templates folder (by default they are left out)."`
	SearchExtras
}

// SearchOutput is the obsidian_search result.
type SearchOutput struct {
	Query           string            `json:"query"`
	Method          string            `json:"method" jsonschema:"Fusion method: rrf (Reciprocal Rank Fusion)."`
	K               int               `json:"k" jsonschema:"RRF constant."`
	SignalsUsed     []string          `json:"signals_used" jsonschema:"Signals that ranked this query: tfidf, bm25, embeddings, feedback (TF-IDF re-run with terms of the first hits), proximity (the first hits re-ranked by how close the query terms are, when weighted above 0); rerank when a reranker re-ordered the top hits."`
	SignalErrors    map[string]string `json:"signal_errors,omitempty" jsonschema:"Signals that failed or are unavailable, and why."`
	TotalCandidates int               `json:"total_candidates" jsonschema:"Fused candidates that passed every filter, before the cut to limit."`
	Matches         []SearchMatch     `json:"matches"`
	SearchPaging
}

// SearchMatch is one hit.
type SearchMatch struct {
	Path      string    `json:"path" jsonschema:"Vault-relative path."`
	Title     string    `json:"title"`
	Score     float64   `json:"score" jsonschema:"Fused (and graph-boosted) score; higher is better. With recency_weight or importance_weight above 0 it is the blend of relevance, recency and importance. When reranked, the top hits are ordered by per_signal.rerank instead."`
	Snippet   string    `json:"snippet" jsonschema:"Best matching passage; query terms are wrapped in **; PDF snippets start with [page: N]."`
	Kind      string    `json:"kind" jsonschema:"md, pdf, or excalidraw (a drawing: only its text elements are searched)."`
	Page      int       `json:"page,omitempty" jsonschema:"PDF page of the snippet or block (pdf hits only)."`
	OCR       bool      `json:"ocr,omitempty" jsonschema:"The page's text was read by OCR from a scanned image (pdf hits only; may hold recognition errors)."`
	PerSignal PerSignal `json:"per_signal" jsonschema:"Rank and raw score from each signal that found the hit."`
	LineStart int       `json:"line_start,omitempty" jsonschema:"First file line (1-based) of the snippet or block."`
	LineEnd   int       `json:"line_end,omitempty" jsonschema:"Last file line of the snippet or block."`
	AgeDays   int       `json:"age_days" jsonschema:"Whole days since the file was last modified."`
	Stale     bool      `json:"stale" jsonschema:"age_days is at or above the staleness threshold (default 365)."`
	// ResultType and MemoryKey come with every hit; Relevance, Recency and
	// Importance only when a recency or importance weight is above 0.
	ResultType string       `json:"result_type" jsonschema:"note, or memory for a note with frontmatter type: memory."`
	MemoryKey  string       `json:"memory_key,omitempty" jsonschema:"A memory's key (memories only)."`
	Relevance  *float64     `json:"relevance,omitempty" jsonschema:"Fused score over the best candidate's (0-1); only when recency_weight or importance_weight is above 0, and then score blends it with recency and importance."`
	Recency    *float64     `json:"recency,omitempty" jsonschema:"0.5^(age in days / --stale-days): 1 for a file modified now (only with a recency or importance weight)."`
	Importance *float64     `json:"importance,omitempty" jsonschema:"Frontmatter importance / 10 (0.5 when missing or invalid; only with a recency or importance weight)."`
	Passages   []PassageOut `json:"passages,omitempty" jsonschema:"With max_passages: the note's best passages, best first."`
}

// PerSignal holds the signals that found a hit.
type PerSignal struct {
	BM25       *SignalRank `json:"bm25,omitempty"`
	TFIDF      *SignalRank `json:"tfidf,omitempty"`
	Embeddings *SignalRank `json:"embeddings,omitempty"`
	Feedback   *SignalRank `json:"feedback,omitempty"`
	Proximity  *SignalRank `json:"proximity,omitempty"`
	Rerank     *SignalRank `json:"rerank,omitempty"`
}

// SignalRank is a hit's place in one signal's list.
type SignalRank struct {
	Rank  int     `json:"rank" jsonschema:"1-based rank in this signal's list."`
	Score float64 `json:"score" jsonschema:"The signal's own score."`
}

// Request converts tool input into a search request.
func (in SearchInput) Request() search.Request {
	boost := true
	if in.GraphBoost != nil {
		boost = *in.GraphBoost
	}
	return search.Request{
		Query: in.Query, Folder: in.Folder, Limit: in.Limit, MinSignals: in.MinSignals,
		EmbeddingModel: in.EmbeddingModel, Granularity: in.Granularity, GraphBoost: boost,
		Frontmatter: in.FilterFrontmatter, RecencyWeight: in.RecencyWeight, ImportanceWeight: in.ImportanceWeight,
		Types: in.Types, Rerank: in.Rerank,
		MaxPassages: in.MaxPassages, Cursor: in.Cursor, Expand: in.Expand, MinSimilarity: in.MinSimilarity,
		IncludeExcluded: in.IncludeExcluded,
	}
}

// NewSearchOutput converts a search result into the tool's JSON shape.
func NewSearchOutput(r *search.Result) SearchOutput {
	out := SearchOutput{
		Query: r.Query, Method: "rrf", K: int(r.K), SignalsUsed: r.SignalsUsed,
		SignalErrors: r.SignalErrors, TotalCandidates: r.TotalCandidates,
		Matches: make([]SearchMatch, len(r.Hits)),
	}
	if out.SignalsUsed == nil {
		out.SignalsUsed = []string{}
	}
	for i, h := range r.Hits {
		m := SearchMatch{Path: h.Path, Title: h.Title, Score: h.Score, Snippet: h.Snippet, Kind: h.Kind, Page: h.Page, OCR: h.OCR,
			LineStart: h.LineStart, LineEnd: h.LineEnd, AgeDays: h.AgeDays, Stale: h.Stale,
			ResultType: h.ResultType, MemoryKey: h.MemoryKey, Passages: passagesOut(h.Passages)}
		if b := h.Blend; b != nil {
			m.Relevance, m.Recency, m.Importance = &b.Relevance, &b.Recency, &b.Importance
		}
		for sig, s := range h.Signals {
			sr := &SignalRank{Rank: s.Rank, Score: s.Score}
			switch sig {
			case rankers.SignalBM25:
				m.PerSignal.BM25 = sr
			case rankers.SignalTFIDF:
				m.PerSignal.TFIDF = sr
			case rankers.SignalEmbeddings:
				m.PerSignal.Embeddings = sr
			case rankers.SignalFeedback:
				m.PerSignal.Feedback = sr
			case rankers.SignalProximity:
				m.PerSignal.Proximity = sr
			case rankers.SignalRerank:
				m.PerSignal.Rerank = sr
			}
		}
		out.Matches[i] = m
	}
	out.SearchPaging = newSearchPaging(r)
	return out
}

func searchInputSchema() *jsonschema.Schema {
	s := inputSchema[SearchInput]()
	p := s.Properties
	p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(search.MaxQueryRunes)
	setRange(p["limit"], 1, search.MaxLimit, search.DefaultLimit)
	setRange(p["min_signals"], 1, search.MaxMinSignals, 1)
	p["granularity"].Enum = []any{search.GranularityNote, search.GranularityBlock}
	p["granularity"].Default = jsonRaw(`"note"`)
	p["graph_boost"].Types, p["graph_boost"].Type = nil, "boolean"
	p["graph_boost"].Default = jsonRaw(`true`)
	p["rerank"].Types, p["rerank"].Type = nil, "boolean"
	p["filter_frontmatter"].AdditionalProperties = frontmatterFilterValue()
	for _, w := range []string{"recency_weight", "importance_weight"} {
		p[w].Types, p[w].Type = nil, "number"
		p[w].Minimum, p[w].Maximum = ptr(0.0), ptr(1.0)
	}
	p["types"].Types, p["types"].Type = nil, "array"
	p["types"].Items.Enum = []any{search.ResultNote, search.ResultMemory}
	searchExtrasSchema(p)
	return s
}

func searchOutputSchema() *jsonschema.Schema {
	s := outputSchema[SearchOutput]()
	m := s.Properties["matches"].Items
	m.Properties["kind"].Enum = []any{vault.KindMarkdown, vault.KindPDF, vault.KindDrawing}
	m.Properties["result_type"].Enum = []any{search.ResultNote, search.ResultMemory}
	searchPagingSchema(s)
	return s
}

func (s *Server) addSearch() {
	addTool(s, &mcp.Tool{
		Name:         "obsidian_search",
		Title:        "Search the vault",
		Description:  "Ranked search over the vault: fuses TF-IDF (always), BM25 (with a persistent index) and embeddings (when built) with Reciprocal Rank Fusion, boosts notes linked from other top hits, and filters by folder, frontmatter and number of agreeing signals before cutting to limit. Each match reports its per-signal ranks, a snippet, age and staleness.",
		Annotations:  readOnly(),
		InputSchema:  searchInputSchema(),
		OutputSchema: searchOutputSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
		res, err := s.engine().Search(ctx, in.Request())
		if err != nil {
			if errors.Is(err, search.ErrInvalid) {
				return nil, SearchOutput{}, err
			}
			return nil, SearchOutput{}, s.internal("obsidian_search", err)
		}
		return nil, NewSearchOutput(res), nil
	})
}
