package service

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/privacy"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// VaultFilter turns rules into the vault loader's filter (nil when they
// hide nothing, so a nil pointer never hides inside an interface).
func VaultFilter(r *privacy.Rules) vault.Filter {
	if r == nil || !r.Active() {
		return nil
	}
	return r
}

// IndexPrivacy is the same for an index source.
func IndexPrivacy(r *privacy.Rules) index.Privacy {
	if r == nil || !r.Active() {
		return nil
	}
	return r
}

// logPrivacy says once what the rules are and what they hid.
func logPrivacy(logger *slog.Logger, r *privacy.Rules, snap *vault.Snapshot) {
	if r == nil || !r.Active() {
		return
	}
	logger.Info("privacy rules", "rules", r.Describe(), "hidden_notes", snap.Privacy.HiddenNotes, "hidden_files", snap.Privacy.HiddenFiles)
	if len(snap.Notes) == 0 && snap.Privacy.HiddenNotes > 0 {
		logger.Warn("the privacy rules hide every note of the vault: every answer will be empty")
	}
}

// logPurge reports what a sync purged for the privacy rules (counts
// only). A scrub of free pages alone (new rules, nothing to purge) is not
// news to the user.
func logPurge(logger *slog.Logger, st index.Stats) {
	if st.Purged > 0 {
		logger.Info("privacy purge", "files_purged", st.Purged, "index_rewritten", st.PurgedFile)
	}
}

// rereadRules compiles the rules again before a reload, so an edited
// .enquire/ignore applies without a restart. A rule file that became
// invalid fails the reload: the engine in service keeps its rules.
func (l *Vault) rereadRules(ctx context.Context) error {
	rules, err := privacy.Load(ctx, l.root, l.cfg.Privacy, privacy.CaseInsensitive(l.root))
	if err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	l.vaultOpts.Filter = VaultFilter(rules)
	return nil
}
