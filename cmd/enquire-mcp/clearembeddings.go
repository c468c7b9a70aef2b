package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// runClearEmbeddings deletes the vectors of one vault's index and forgets
// their model; the text index (BM25, PDF text) stays.
func runClearEmbeddings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	path, err := indexFileFlag("clear-embeddings", args, stderr)
	if err != nil {
		return err
	}
	info, err := index.Inspect(ctx, path)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "no index, so no embeddings to clear: %s does not exist\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if !info.Ours {
		return fmt.Errorf("index %s: %w; not changed", path, index.ErrForeign)
	}
	if info.EmbeddingModel == "" {
		fmt.Fprintf(stdout, "no embeddings in %s\n", path)
		return nil
	}
	// Opened with its own settings: clearing vectors must never rebuild
	// the text index.
	ix, err := index.Open(ctx, path, info.Settings, false)
	if err != nil {
		return err
	}
	defer ix.Close()
	n, err := ix.Vectors().Clear(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cleared %d vectors of %s from %s\n", n, info.EmbeddingAlias, path)
	return nil
}
