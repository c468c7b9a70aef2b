package models

import (
	"errors"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/learned"
)

// VaultAlias names the model learned from the vault itself (package
// embed/learned); build-embeddings learns it, Open loads it.
const VaultAlias = learned.Alias

// errNoVaultModel is returned when the vault model is asked for without
// the file it is kept in.
var errNoVaultModel = errors.New("the vault model needs the persistent index (its word vectors live next to it)")

func openVault(opts Options) (embed.Embedder, error) {
	if opts.VaultModel == "" {
		return nil, wrap(VaultAlias, errNoVaultModel)
	}
	m, err := learned.Load(opts.VaultModel, analysis.New())
	if err != nil {
		return nil, wrap(VaultAlias, err)
	}
	return m, nil
}
