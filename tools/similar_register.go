package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/contextpack"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// addSimilarTools registers obsidian_find_similar and
// obsidian_context_pack.
func (s *Server) addSimilarTools() {
	cache := &simCache{}
	addTool(s, &mcp.Tool{
		Name:  "obsidian_find_similar",
		Title: "Find similar notes",
		Description: "Notes like a given one (by path or title), best first, never the note itself. Each result reports every signal: content (TF-IDF cosine of the two notes), embeddings (cosine of their mean chunk vectors, when embeddings are loaded), shared_tags (Jaccard, nested tags count as their parents too), shared_links (notes both link to), co_citation (notes linking to both) and direct_link. " +
			"score is the weighted mean of the normalised signals in [0, 1] (content 0.40, embeddings 0.20, shared_tags 0.15, shared_links 0.10 and co_citation 0.10 as Salton's cosine count/sqrt(degree product), direct_link 0.05; divided by the weights available). Ties go by path.",
		Annotations:  readOnly(),
		InputSchema:  similarInputSchema(),
		OutputSchema: outputSchema[SimilarOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SimilarInput) (*mcp.CallToolResult, SimilarOutput, error) {
		out, err := s.findSimilar(ctx, cache, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:  "obsidian_context_pack",
		Title: "Pack context for a question",
		Description: "One markdown bundle an assistant can read in one go: searches the vault (the obsidian_search pipeline), then for the best notes quotes the most relevant passage (with path, hit rank and score, line range, or page for PDFs), widened with its surroundings as the budget allows, and lists the notes linking to each (path and linking line). " +
			"The bundle never exceeds budget_tokens (estimated as max(characters/4, 1.3 × words)); included says what is in it and why, skipped and truncated say what the budget cut.",
		Annotations:  readOnly(),
		InputSchema:  contextPackInputSchema(),
		OutputSchema: outputSchema[ContextPackOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ContextPackInput) (*mcp.CallToolResult, ContextPackOutput, error) {
		out, err := s.contextPack(ctx, in)
		return nil, out, err
	})
}

func similarInputSchema() *jsonschema.Schema {
	s := inputSchema[SimilarInput]()
	p := s.Properties
	setRange(p["limit"], 1, similarMaxLimit, similarDefaultLimit)
	p["min_score"].Minimum, p["min_score"].Maximum = ptr(0.0), ptr(1.0)
	p["min_score"].Default = jsonRaw("0")
	return s
}

func contextPackInputSchema() *jsonschema.Schema {
	s := inputSchema[ContextPackInput]()
	p := s.Properties
	p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(search.MaxQueryRunes)
	setRange(p["budget_tokens"], contextpack.MinBudget, contextpack.MaxBudget, contextpack.DefaultBudget)
	setRange(p["max_notes"], 1, contextpack.MaxNotes, contextpack.DefaultNotes)
	p["include_backlinks"].Types, p["include_backlinks"].Type = nil, "boolean"
	p["include_backlinks"].Default = jsonRaw(`true`)
	p["granularity"].Enum = []any{search.GranularityNote, search.GranularityBlock}
	p["granularity"].Default = jsonRaw(`"note"`)
	return s
}
