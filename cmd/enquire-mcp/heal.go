package main

import (
	"context"
	"log/slog"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
)

// heal makes a damaged index rebuild itself from the vault on disk in the
// background, while TF-IDF serves. The new file follows rules (the ones
// in use when the rebuild starts), as `index` does: a heal must not
// bring back what the privacy rules keep out of the index.
func (v *vaultFlags) heal(ix *index.Index, rules func() *privacy.Rules, logger *slog.Logger) {
	ix.SetHealer(index.Healer{Logger: logger, Source: func(ctx context.Context, fresh *index.Index) (index.Source, error) {
		src, err := fresh.DiskSource(ctx, v.maxFileSize, v.reader(fresh, func(msg string) { logger.Warn(msg) }))
		if err != nil {
			return src, err
		}
		src.Privacy = indexPrivacy(rules())
		return src, nil
	}})
}

// currentRules are the privacy rules in use (reloads change them).
func (l *loaded) currentRules() *privacy.Rules {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, _ := l.vaultOpts.Filter.(*privacy.Rules)
	return r
}
