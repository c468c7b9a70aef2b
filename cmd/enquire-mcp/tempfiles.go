package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// staleTempAge is the age past which one of our temporary files is no
// write in progress (an atomic write holds one for milliseconds) but the
// leftover of a server killed mid-write.
const staleTempAge = 10 * time.Minute

// cleanStaleTemp removes the temporary files (.enquire-*.tmp) that
// interrupted writes left in the vault, and logs what it removed. It runs
// at the start of a server with the write tools enabled: without them the
// vault is never written, not even to tidy up.
func cleanStaleTemp(ctx context.Context, snap *vault.Snapshot, now time.Time, logger *slog.Logger) []string {
	fsys, err := snap.Files()
	if err != nil {
		logger.Warn("temporary files not cleaned", "error", err)
		return nil
	}
	removed, err := fsys.CleanTemp(ctx, now.Add(-staleTempAge))
	if len(removed) > 0 {
		logger.Info("removed temporary files left by interrupted writes", "files", removed)
	}
	if err != nil {
		logger.Warn("temporary files not all cleaned", "error", err)
	}
	return removed
}
