package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/model2vec"
)

// CacheDir is where models are installed: opts.CacheDir, else the user
// cache dir's enquire-mcp folder.
func CacheDir(opts Options) (string, error) {
	if opts.CacheDir != "" {
		return opts.CacheDir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache dir (pass --model-dir): %w", err)
	}
	return filepath.Join(dir, "enquire-mcp"), nil
}

// openModel2Vec loads an installed model2vec model, by alias or by the
// path of a folder holding model.safetensors and tokenizer.json.
func openModel2Vec(ctx context.Context, alias string, opts Options) (embed.Embedder, error) {
	if info, err := os.Stat(alias); err == nil && info.IsDir() {
		m, err := model2vec.Load(ctx, alias)
		if err != nil {
			return nil, wrap(alias, err)
		}
		return m, nil
	}
	if err := Check(alias); err != nil {
		return nil, err
	}
	cache, err := CacheDir(opts)
	if err != nil {
		return nil, wrap(alias, err)
	}
	dir, ok := model2vec.Find(alias, cache)
	if !ok {
		return nil, wrap(alias, fmt.Errorf("not installed in %s; run `enquire-mcp install-model %s` (serving never downloads)", cache, alias))
	}
	m, err := model2vec.Load(ctx, dir)
	if err != nil {
		return nil, wrap(alias, err)
	}
	return m, nil
}
