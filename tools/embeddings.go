package tools

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// EmbeddingsInput is the obsidian_embeddings_search request.
type EmbeddingsInput struct {
	Query       string `json:"query" jsonschema:"Text to compare by meaning with every chunk's vector."`
	Folder      string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	Limit       int    `json:"limit,omitempty" jsonschema:"Number of hits (1-100, default 10)."`
	Granularity string `json:"granularity,omitempty" jsonschema:"note (default): best chunk per note; block: chunks."`
}

// EmbeddingsOutput lists hits of the embeddings signal alone.
type EmbeddingsOutput struct {
	Query   string          `json:"query"`
	Model   string          `json:"model" jsonschema:"The embedding model's alias."`
	ModelID string          `json:"model_id" jsonschema:"The exact model: provider, name, version, dimension."`
	Total   int             `json:"total_candidates"`
	Hits    []EmbeddingsHit `json:"hits"`
}

// EmbeddingsHit is one note or chunk with its cosine similarity.
type EmbeddingsHit struct {
	Path      string  `json:"path"`
	Title     string  `json:"title"`
	Kind      string  `json:"kind"`
	Chunk     *int    `json:"chunk,omitempty" jsonschema:"Chunk index (block granularity)."`
	LineStart int     `json:"line_start,omitempty"`
	LineEnd   int     `json:"line_end,omitempty"`
	Page      int     `json:"page,omitempty"`
	Cosine    float64 `json:"cosine" jsonschema:"Cosine similarity between query and chunk vectors."`
	Snippet   string  `json:"snippet"`
}

// addEmbeddings registers the diagnostic dense-search tool; only when
// vectors are loaded.
func (s *Server) addEmbeddings() {
	in := inputSchema[EmbeddingsInput]()
	in.Properties["query"].MinLength, in.Properties["query"].MaxLength = ptr(1), ptr(search.MaxQueryRunes)
	setRange(in.Properties["limit"], 1, search.MaxLimit, search.DefaultLimit)
	in.Properties["granularity"].Enum = []any{search.GranularityNote, search.GranularityBlock}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_embeddings_search",
		Title:        "Semantic search (embeddings only)",
		Description:  "Diagnostic: the embeddings signal alone — notes (best chunk) or chunks ranked by cosine similarity with the query's vector, with the model that made the vectors. Prefer obsidian_search for answers.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[EmbeddingsOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in EmbeddingsInput) (*mcp.CallToolResult, EmbeddingsOutput, error) {
		eng := s.engine()
		m, ok := eng.EmbeddingModel()
		if !ok {
			return nil, EmbeddingsOutput{}, errors.New("no embeddings are loaded (run `enquire-mcp build-embeddings`)")
		}
		res, err := eng.Search(ctx, search.Request{Query: in.Query, Folder: in.Folder, Limit: in.Limit,
			Granularity: in.Granularity, Signals: []string{rankers.SignalEmbeddings}})
		if err != nil {
			if errors.Is(err, search.ErrInvalid) {
				return nil, EmbeddingsOutput{}, err
			}
			return nil, EmbeddingsOutput{}, s.internal("obsidian_embeddings_search", err)
		}
		if msg := res.SignalErrors[rankers.SignalEmbeddings]; msg != "" {
			return nil, EmbeddingsOutput{}, errors.New("embeddings " + msg)
		}
		out := EmbeddingsOutput{Query: res.Query, Model: m.Alias, ModelID: m.ID, Total: res.TotalCandidates, Hits: []EmbeddingsHit{}}
		for _, h := range res.Hits {
			hit := EmbeddingsHit{Path: h.Path, Title: h.Title, Kind: h.Kind, LineStart: h.LineStart, LineEnd: h.LineEnd,
				Page: h.Page, Cosine: h.Signals[rankers.SignalEmbeddings].Score, Snippet: h.Snippet}
			if h.Chunk != rankers.NoChunk {
				hit.Chunk = ptr(h.Chunk)
			}
			out.Hits = append(out.Hits, hit)
		}
		return nil, out, nil
	})
}
