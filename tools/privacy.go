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

// errHiddenPath refuses a write into a path a path rule covers
// (vault.Snapshot.RuleHides): the server may neither create nor replace
// what it cannot show. The refusal says no more than that a rule covers
// the path, the same whether or not a file is there. A note that marked
// itself private is never refused with it: that would tell that it exists
// (see privateTarget).
func errHiddenPath(rel string) error {
	return fmt.Errorf("%s: refused: the vault's privacy rules hide this path, so the server does not write there", rel)
}

// privateTarget reports whether rel holds a note that hides itself by its
// marker, no path rule covering it: a write aimed at it must neither
// change it nor answer otherwise than for a visible note or no note (see
// createNote, renameNote and findMemory).
func privateTarget(snap *vault.Snapshot, rel string) bool {
	return !snap.RuleHides(rel) && hiddenPath(snap, rel)
}
