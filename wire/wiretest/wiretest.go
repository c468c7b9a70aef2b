// Package wiretest gives tests a state file made of given bytes, opened
// as the product opens one (wire.Open: mapped where the system can).
package wiretest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/wire"
)

// Open writes data to a new file in tb's temporary directory and opens
// it with [wire.Open]; it fails tb on any error.
func Open(tb testing.TB, data []byte) *wire.File {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "state")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	f, err := wire.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
