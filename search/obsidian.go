package search

import (
	"errors"
	"io/fs"

	"github.com/enquire-mcp/enquire-mcp/obsidian"
)

// Obsidian reads the vault's own Obsidian settings now (they are a few
// small files, and an edit made in Obsidian applies to the next search).
func (e *Engine) Obsidian() obsidian.Config {
	var files obsidian.Files = noFiles{}
	if fsys, err := e.snap.Files(); err == nil {
		files = fsys
	}
	return obsidian.Read(files, func(folder string) bool { return len(e.snap.Under(folder)) > 0 })
}

// noFiles stands in for the vault of an engine built without a handle
// (tests): Obsidian's defaults.
type noFiles struct{}

func (noFiles) ReadFile(string, int64) ([]byte, fs.FileInfo, error) {
	return nil, nil, errors.ErrUnsupported
}

// allowObsidian leaves out the notes Obsidian keeps out of its own search
// (the excluded files and the templates folder) unless include is set.
// They are left out rather than ranked last: a hit list cut to a limit
// would rarely reach them anyway, and a request that wants them asks.
func (e *Engine) allowObsidian(allow func(int) bool, include bool) func(int) bool {
	if include {
		return allow
	}
	c := e.Obsidian()
	if !c.HasExclusions() {
		return allow
	}
	ok := make([]bool, len(e.snap.Notes))
	for i, n := range e.snap.Notes {
		ok[i] = c.Excluded(n.Path) == "" && (allow == nil || allow(i))
	}
	return func(i int) bool { return ok[i] }
}
