package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Privacy is a vault's privacy rules as a sync sees them (see package
// privacy): files they exclude and notes they call private get no rows,
// and Hash identifies the rule set so a change is noticed.
type Privacy interface {
	vault.Filter
	Hash() string
}

// metaPrivacy is the meta key of the rules hash the index was purged for.
const metaPrivacy = "privacy_rules"

// storedPrivacy returns the rules hash recorded by the last completed
// purge ("" when none was).
func (ix *Index) storedPrivacy(ctx context.Context) (string, error) {
	h, err := ix.readMeta(ctx, metaPrivacy)
	if err != nil {
		return "", fmt.Errorf("index %s: read privacy rules: %w", ix.path, err)
	}
	return h, nil
}

// finishPurge makes removed text unrecoverable from the file: FTS5 keeps
// deleted entries in its segments until they merge, so the index is
// merged into one segment ("optimize"); vectors no chunk uses are dropped;
// VACUUM rewrites the file without free pages (secure_delete already
// zeroes deleted content); a TRUNCATE checkpoint empties the WAL, which
// can hold old page images. Then the rules hash is recorded, so a purge
// cut short is redone by the next sync.
func (ix *Index) finishPurge(ctx context.Context, hash string) error {
	if _, err := ix.vectors.Prune(ctx); err != nil {
		return err
	}
	err := ix.tx(func(c *sqlite3.Conn) error {
		return c.Exec(`INSERT INTO fts(fts) VALUES ('optimize')`)
	})
	if err != nil {
		return fmt.Errorf("index %s: purge: merge full-text segments: %w", ix.path, err)
	}
	if err := ix.vacuum(ctx); err != nil {
		return err
	}
	if err := ix.checkpoint(); err != nil {
		return err
	}
	return ix.recordPrivacy(hash) // one small page in the WAL, with no note text
}

// recordPrivacy stores the rules hash when nothing needed purging.
func (ix *Index) recordPrivacy(hash string) error {
	err := ix.tx(func(c *sqlite3.Conn) error {
		return exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, metaPrivacy, hash)
	})
	if err != nil {
		return fmt.Errorf("index %s: record privacy rules: %w", ix.path, err)
	}
	return nil
}

func (ix *Index) vacuum(ctx context.Context) error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	old := ix.write.SetInterrupt(ctx)
	defer ix.write.SetInterrupt(old)
	if err := ix.write.Exec(`VACUUM`); err != nil {
		return fmt.Errorf("index %s: purge: vacuum: %w", ix.path, err)
	}
	return nil
}

// checkpoint copies the WAL into the main file and truncates it to zero
// bytes. Readers in the middle of a search can keep it from finishing;
// that is an error, and the next purge retries.
func (ix *Index) checkpoint() error {
	ix.writeMu.Lock()
	defer ix.writeMu.Unlock()
	st, _, err := ix.write.Prepare(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if err != nil {
		return fmt.Errorf("index %s: purge: checkpoint: %w", ix.path, err)
	}
	defer st.Close()
	busy := 0
	if st.Step() {
		busy = st.ColumnInt(0)
	}
	if err := st.Err(); err != nil {
		return fmt.Errorf("index %s: purge: checkpoint: %w", ix.path, err)
	}
	if busy != 0 {
		return fmt.Errorf("index %s: purge: checkpoint: %w", ix.path, errors.New("the write-ahead log is in use by a reader; it is emptied on the next purge"))
	}
	return nil
}

// rulesChanged reports whether p differs from the rules the index was
// last purged for (false without rules).
func (ix *Index) rulesChanged(ctx context.Context, p Privacy) (bool, error) {
	if p == nil {
		return false, nil
	}
	stored, err := ix.storedPrivacy(ctx)
	if err != nil {
		return false, err
	}
	return stored != p.Hash(), nil
}

// settlePrivacy finishes a sync under privacy rules: after rows were
// purged, or when the rules changed (a purge cut short, or text deleted
// before the rules existed, may linger in free pages), the file is
// scrubbed and the rules recorded. A failed scrub is a warning, not a
// failed sync: the rules are then not recorded, so the next sync retries.
func (ix *Index) settlePrivacy(ctx context.Context, p Privacy, rulesChanged bool, st *Stats) error {
	if p == nil || (!rulesChanged && st.Purged == 0) {
		return nil
	}
	if st.Purged > 0 {
		ix.dropVaultModel(st)
	}
	if err := ix.finishPurge(ctx, p.Hash()); err != nil {
		if ctx.Err() != nil {
			return err
		}
		st.Warnings = append(st.Warnings, vault.Warning{Path: ix.path, Message: err.Error() + "; retried at the next sync"})
		return nil
	}
	st.PurgedFile = true
	return nil
}

// dropVaultModel deletes the vault-learned embedding model next to the
// index (see VaultModelPath) when notes were purged: learned from every
// chunk the index held, its vocabulary may hold their words. The
// vectors it made stay until build-embeddings learns it again, which the
// warning says.
func (ix *Index) dropVaultModel(st *Stats) {
	path := VaultModelPath(ix.path)
	switch err := os.Remove(path); {
	case err == nil:
		st.Warnings = append(st.Warnings, vault.Warning{Path: path, Message: "the vault-learned embedding model was deleted: it may hold words of notes the privacy rules now hide; run build-embeddings --embedding-model vault to learn it again"})
	case !errors.Is(err, fs.ErrNotExist):
		st.Warnings = append(st.Warnings, vault.Warning{Path: path, Message: "the vault-learned embedding model may hold words of notes the privacy rules now hide, and deleting it failed: " + err.Error()})
	}
}
