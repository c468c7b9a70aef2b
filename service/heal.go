package service

import (
	"context"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
)

// heal makes a damaged index rebuild itself from the vault on disk in the
// background, while TF-IDF serves. The new file follows the privacy rules
// in use when the rebuild starts, as `index` does: a heal must not bring
// back what they keep out of the index.
func (l *Vault) heal() {
	logger := l.logger
	l.ix.Health().SetHealer(index.Healer{Logger: logger, Healed: func() { l.healed.Store(true) }, Source: func(ctx context.Context, fresh *index.Index) (index.Source, error) {
		if err := l.keep(ctx, fresh); err != nil {
			return index.Source{}, err
		}
		src, err := fresh.DiskSource(ctx, l.cfg.MaxFileSize, l.reader(fresh, func(msg string) { logger.Warn(msg) }))
		if err != nil {
			return src, err
		}
		src.Privacy = IndexPrivacy(l.currentRules())
		return src, nil
	}})
}

// currentRules are the privacy rules in use (reloads change them).
func (l *Vault) currentRules() *privacy.Rules {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, _ := l.vaultOpts.Filter.(*privacy.Rules)
	return r
}
