package models

import (
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/minilm"
)

func openBuiltin() (embed.Embedder, error) {
	m, err := minilm.Load()
	if err != nil {
		return nil, wrap(DefaultAlias, err)
	}
	return m, nil
}
