// Package models opens an embedding model by the alias a user types:
// "builtin" (a static table distilled from all-MiniLM-L6-v2,
// compiled into the binary), "vault" (word
// vectors learned from the vault by build-embeddings), a model2vec alias
// or folder installed with `enquire-mcp install-model`, a transformer
// model (embed/onnx; the ort build only), "ollama:<model>"
// or "openai:<model>". It never downloads anything.
package models

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// DefaultAlias is the model used when none is named: offline, in the
// binary, English only.
const DefaultAlias = "builtin"

// Options configure the providers.
type Options struct {
	// CacheDir holds installed model2vec models ("" = user cache dir).
	CacheDir string
	// BaseURL overrides the server of ollama: and openai: models (else
	// the environment, else the provider's default).
	BaseURL string
	// ORTLib is the ONNX Runtime library for transformer models (the
	// --ort-lib flag; see ORTLibrary).
	ORTLib string
	// VaultModel is the file of the vault-learned model (alias "vault";
	// see index.VaultModelPath).
	VaultModel string
	// BatchJob says the model embeds a whole vault and then closes
	// (build-embeddings): transformer models then keep their memory
	// arena between batches (onnx.Options.Arena).
	BatchJob bool
}

// ErrUnknown is returned for an alias no provider recognises.
var ErrUnknown = errors.New("unknown embedding model")

// Open returns the embedder an alias names. A remote model is probed once
// so that its dimension is known.
func Open(ctx context.Context, alias string, opts Options) (embed.Embedder, error) {
	if alias == "" {
		alias = DefaultAlias
	}
	provider, name, _ := strings.Cut(alias, ":")
	switch {
	case alias == DefaultAlias:
		return openBuiltin()
	case alias == VaultAlias:
		return openVault(opts)
	case provider == "ollama" && name != "":
		return openOllama(ctx, name, opts)
	case provider == "openai" && name != "":
		return openOpenAI(ctx, name, opts)
	case isORT(alias):
		return openORT(ctx, alias, opts)
	default:
		return openModel2Vec(ctx, alias, opts)
	}
}

func wrap(alias string, err error) error {
	return fmt.Errorf("embedding model %q: %w", alias, err)
}
