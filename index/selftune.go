package index

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// metaSelfTune is the meta key of the weights the vault's own queries
// chose (kept as the caller's JSON). A rebuild, or the reset of a damaged
// index, makes a new meta table without it, so the choice is made again.
const metaSelfTune = "selftune"

// SelfTune returns the kept self-tuned choice as written by KeepSelfTune
// ("" when none is kept).
func (ix *Index) SelfTune(ctx context.Context) (string, error) {
	v, err := ix.readMeta(ctx, metaSelfTune)
	if err != nil {
		return "", fmt.Errorf("index %s: read the self-tuned weights: %w", ix.path, err)
	}
	return v, nil
}

// KeepSelfTune keeps a self-tuned choice (opaque text, JSON by
// convention) in the index, in one transaction.
func (ix *Index) KeepSelfTune(value string) error {
	err := ix.tx(func(c *sqlite3.Conn) error {
		return exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, metaSelfTune, value)
	})
	if err != nil {
		return fmt.Errorf("index %s: keep the self-tuned weights: %w", ix.path, err)
	}
	return nil
}
