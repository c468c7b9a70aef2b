package tools

import (
	"context"
	"errors"

	"github.com/enquire-mcp/enquire-mcp/contextpack"
)

// ContextPackInput is the obsidian_context_pack request.
type ContextPackInput struct {
	Query            string `json:"query" jsonschema:"What the assistant needs context for: words, a phrase or a question (1-4096 characters)."`
	BudgetTokens     int    `json:"budget_tokens,omitempty" jsonschema:"Token budget of the bundle (256-32000, default 4000). Tokens are estimated as max(characters/4, 1.3 × words), a CJK character counting as a word; the bundle never exceeds the budget."`
	Folder           string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	IncludeBacklinks *bool  `json:"include_backlinks,omitempty" jsonschema:"List notes linking to each included note, with the linking line (default true)."`
	MaxNotes         int    `json:"max_notes,omitempty" jsonschema:"Most notes to include (1-50, default 8)."`
	Granularity      string `json:"granularity,omitempty" jsonschema:"note (default): rank notes, include each one's best passage widened with its surroundings as the budget allows; block: rank passages, include up to 3 best passages per note."`
}

// ContextPackOutput is the obsidian_context_pack result.
type ContextPackOutput struct {
	Query           string        `json:"query"`
	BudgetTokens    int           `json:"budget_tokens"`
	EstimatedTokens int           `json:"estimated_tokens" jsonschema:"Estimated tokens of bundle (max(characters/4, 1.3 × words)); never above budget_tokens."`
	Bundle          string        `json:"bundle" jsonschema:"Markdown: # Context for, ## Top notes (one ### section per note: path, hit rank and score, line range or PDF page, passage), ## Backlinks."`
	Included        []PackedItem  `json:"included" jsonschema:"What the bundle holds, in order."`
	Truncated       bool          `json:"truncated" jsonschema:"The budget cut something: a passage (see trimmed), a note or a backlink (see skipped)."`
	Skipped         []SkippedItem `json:"skipped" jsonschema:"Hits and backlinks left out, and why."`
}

// PackedItem is one note or backlink in the bundle.
type PackedItem struct {
	Path      string `json:"path"`
	Title     string `json:"title"`
	Reason    string `json:"reason" jsonschema:"hit #n, score s (the note's search rank and fused score; in block mode those of its best passage) or backlink of PATH (a note linking to an included one)."`
	Page      int    `json:"page,omitempty" jsonschema:"PDF page the passage starts on (pdf notes only; they have no line range)."`
	LineStart int    `json:"line_start,omitempty" jsonschema:"First file line (1-based) of the passage or of the linking line."`
	LineEnd   int    `json:"line_end,omitempty" jsonschema:"Last file line of the passage(s)."`
	Tokens    int    `json:"tokens" jsonschema:"Estimated tokens of this item's part of the bundle."`
	Trimmed   bool   `json:"trimmed,omitempty" jsonschema:"The best passage itself was cut to fit the budget."`
}

// SkippedItem is a hit or backlink the bundle leaves out.
type SkippedItem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// contextPack answers obsidian_context_pack.
func (s *Server) contextPack(ctx context.Context, in ContextPackInput) (ContextPackOutput, error) {
	req := contextpack.Request{Query: in.Query, BudgetTokens: in.BudgetTokens, Folder: in.Folder,
		NoBacklinks: in.IncludeBacklinks != nil && !*in.IncludeBacklinks, MaxNotes: in.MaxNotes, Granularity: in.Granularity}
	p, err := contextpack.Build(ctx, s.engine(), req)
	if errors.Is(err, contextpack.ErrInternal) {
		return ContextPackOutput{}, s.internal("obsidian_context_pack", err)
	}
	if err != nil {
		return ContextPackOutput{}, err
	}
	out := ContextPackOutput{Query: p.Query, BudgetTokens: p.BudgetTokens, EstimatedTokens: p.EstimatedTokens, Bundle: p.Bundle,
		Included: make([]PackedItem, len(p.Included)), Truncated: p.Truncated, Skipped: make([]SkippedItem, len(p.Skipped))}
	for i, it := range p.Included {
		out.Included[i] = PackedItem{Path: it.Path, Title: it.Title, Reason: it.Reason, Page: it.Page,
			LineStart: it.LineStart, LineEnd: it.LineEnd, Tokens: it.Tokens, Trimmed: it.Trimmed}
	}
	for i, sk := range p.Skipped {
		out.Skipped[i] = SkippedItem{Path: sk.Path, Reason: sk.Reason}
	}
	return out, nil
}
