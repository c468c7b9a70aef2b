package main

import (
	"strconv"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// rankingLine says in one line whether the vectors of model change the
// ranking serve returns by default, and with which weight: a user who
// built vectors of weight 0 should not believe search became semantic.
func rankingLine(alias string, model embed.Embedder) string {
	w := search.DefaultWeights(model.ID())[rankers.SignalEmbeddings]
	name := "model " + alias
	if alias == "" || alias == "builtin" {
		name = "built-in model"
	}
	if w <= 0 {
		return "  ranking: " + name + " has weight 0 in fusion: these vectors do not change ranking (they annotate hits; serve --rrf-weights embeddings=W gives them a vote)"
	}
	line := "  ranking: " + name + " has weight " + formatWeight(w) + " in fusion: these vectors change ranking"
	if e, ok := model.(embed.EnglishOnly); ok && e.EnglishOnly() {
		line += " (English queries; weight 0 on a query mostly in CJK script)"
	}
	return line
}

// formatWeight prints a weight as the flags take it (0.5, 1, 2).
func formatWeight(w float64) string { return strconv.FormatFloat(w, 'g', -1, 64) }
