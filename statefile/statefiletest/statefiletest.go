// Package statefiletest gives tests a state file made of given bytes, opened
// as the product opens one (statefile.Open: mapped where the system can).
package statefiletest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// Open writes data to a new file in tb's temporary directory and opens
// it with [statefile.Open]; it fails tb on any error.
func Open(tb testing.TB, data []byte) *statefile.File {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "state")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	f, err := statefile.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
