// Package embed defines what every embedding provider implements. The
// providers live in sub-packages (static word-vector models in static,
// the built-in distilled table in minilm, model2vec models in model2vec,
// Ollama and OpenAI-compatible servers in remote); models.Open picks one
// by alias.
package embed

import (
	"context"
	"errors"
)

// Kind says what a text is: some models embed queries and documents with
// different prefixes ("search_query: " / "search_document: ").
type Kind int

// Kinds of text.
const (
	Document Kind = iota
	Query
)

func (k Kind) String() string {
	if k == Query {
		return "query"
	}
	return "document"
}

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use.
type Embedder interface {
	// ID identifies the model exactly — provider, model, version and
	// dimension, e.g. "builtin:model2vec-minilm-l6-256@1/256". Vectors of
	// different IDs are never mixed.
	ID() string
	// Dim is the vector dimension.
	Dim() int
	// Embed returns one L2-normalised vector per text, in order. A text
	// with nothing the model knows gets a zero vector.
	Embed(ctx context.Context, texts []string, kind Kind) ([][]float32, error)
}

// ErrDimension is returned when a provider answers with vectors of another
// dimension than expected.
var ErrDimension = errors.New("embedding dimension mismatch")

// EnglishOnly is implemented by models trained on English text alone
// (all-MiniLM-L6-v2, bge-small-en-v1.5, per their model cards). Their
// vectors of text in other scripts are close to noise, so the search
// gives them no vote on a query written mostly in CJK script.
type EnglishOnly interface {
	EnglishOnly() bool
}
