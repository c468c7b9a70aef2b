package tools

import (
	"fmt"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// hiddenPath reports whether the privacy rules hide the note at a
// vault-relative path: a path rule, the snapshot's record of a note that
// marked itself private, or the marker in the file as it reads now.
func hiddenPath(snap *vault.Snapshot, rel string) bool {
	if snap.Hides(rel) {
		return true
	}
	_, _, hidden, _ := readLive(snap, rel)
	return hidden
}

// errHiddenPath refuses a write into a path the privacy rules hide: the
// server may neither create nor replace what it cannot show. (The refusal
// says no more than that the rules cover the path.)
func errHiddenPath(rel string) error {
	return fmt.Errorf("%s: refused: the vault's privacy rules hide this path, so the server does not write there", rel)
}
