package models

import (
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/glove"
)

func openBuiltin() (embed.Embedder, error) {
	m, err := glove.Load()
	if err != nil {
		return nil, wrap(DefaultAlias, err)
	}
	return m, nil
}
