package models

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/remote"
)

func openOllama(ctx context.Context, name string, opts Options) (embed.Embedder, error) {
	return openRemote(ctx, remote.ProviderOllama, "ollama:"+name, name, opts)
}

func openOpenAI(ctx context.Context, name string, opts Options) (embed.Embedder, error) {
	return openRemote(ctx, remote.ProviderOpenAI, "openai:"+name, name, opts)
}

// openRemote configures a server model from flags and the environment and
// probes it, so its dimension (part of its ID) is known.
func openRemote(ctx context.Context, p remote.Provider, alias, name string, opts Options) (embed.Embedder, error) {
	cfg, err := remote.FromEnv(p, remote.Config{BaseURL: opts.BaseURL, Model: name}, nil)
	if err != nil {
		return nil, wrap(alias, err)
	}
	m, err := remote.New(p, cfg)
	if err != nil {
		return nil, wrap(alias, err)
	}
	if err := m.Probe(ctx); err != nil {
		return nil, wrap(alias, err)
	}
	return m, nil
}
