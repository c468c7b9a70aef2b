package main

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/learned"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
)

// openOrLearn opens the model alias names; the vault model is learned
// afresh from src's chunks first and saved next to the index, so a
// build-embeddings run refits it to the vault as it is now.
func (e *embedFlags) openOrLearn(ctx context.Context, alias string, ix *index.Index, src index.Source) (embed.Embedder, error) {
	e.vaultModel = index.VaultModelPath(ix.Path())
	if alias != models.VaultAlias {
		return e.open(ctx, alias)
	}
	texts, err := ix.Vectors().EmbedTexts(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("vault model: %w", err)
	}
	an := analysis.New()
	v, err := learned.Learn(ctx, texts, an, learned.Options{})
	if err != nil {
		return nil, fmt.Errorf("vault model: %w", err)
	}
	data, err := learned.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("vault model: %w", err)
	}
	if err := learned.Save(e.vaultModel, data); err != nil {
		return nil, fmt.Errorf("vault model: %w", err)
	}
	return learned.New(data, an)
}
