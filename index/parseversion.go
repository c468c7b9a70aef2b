package index

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// metaParseVersion is the meta key of the vault.ParseVersion the index's
// notes were parsed with.
const metaParseVersion = "parse_version"

// parseOutdated reports whether the notes were parsed by another version
// of the parser, so that a full sync reads every note again: the text it
// indexes may differ for the same bytes. An index that never recorded a
// version predates the record and is outdated.
func (ix *Index) parseOutdated(ctx context.Context) (bool, error) {
	v, err := ix.readMeta(ctx, metaParseVersion)
	if err != nil {
		return false, fmt.Errorf("index %s: read parse version: %w", ix.path, err)
	}
	return v != strconv.Itoa(vault.ParseVersion), nil
}

// recordParseVersion stores this binary's vault.ParseVersion once every
// note has been parsed by it.
func (ix *Index) recordParseVersion() error {
	err := ix.tx(func(c *sqlite3.Conn) error {
		return exec1(c, `INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, metaParseVersion, strconv.Itoa(vault.ParseVersion))
	})
	if err != nil {
		return fmt.Errorf("index %s: record parse version: %w", ix.path, err)
	}
	return nil
}
