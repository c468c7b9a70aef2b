package main

import (
	"context"
	"log/slog"

	"github.com/enquire-mcp/enquire-mcp/index"
)

// heal makes a damaged index rebuild itself from the vault on disk in the
// background, while TF-IDF serves (the `index` command instead reports
// damage with the fix, --rebuild).
func (v *vaultFlags) heal(ix *index.Index, logger *slog.Logger) {
	ix.SetHealer(index.Healer{Logger: logger, Source: func(ctx context.Context, fresh *index.Index) (index.Source, error) {
		return fresh.DiskSource(ctx, v.maxFileSize, v.reader(fresh, func(msg string) { logger.Warn(msg) }))
	}})
}
