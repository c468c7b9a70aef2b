package remote

import (
	"context"
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// Embedder is an embed.Embedder whose dimension may have to be learned
// from the server: call Probe before relying on ID and Dim.
type Embedder interface {
	embed.Embedder
	// Probe embeds one short text to learn, or verify, the dimension.
	Probe(ctx context.Context) error
}

// New returns provider p's embedder for cfg (see NewOllama, NewOpenAI).
func New(p Provider, cfg Config) (Embedder, error) {
	switch p {
	case ProviderOllama:
		o, err := NewOllama(cfg)
		if err != nil {
			return nil, err
		}
		return o, nil
	case ProviderOpenAI:
		o, err := NewOpenAI(cfg)
		if err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("remote: unknown provider %q (want %q or %q)", p, ProviderOllama, ProviderOpenAI)
}
