package tools

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/obsidian"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// periodicNote finds the periodic note a title names ("today", "last
// week", "this quarter": obsidian.ParseRelative), where the vault's
// Daily notes or Periodic Notes settings (or Options.DailyNotes) put it.
// A missing note is a not-found error that names the path it expected.
func (s *Server) periodicNote(e *search.Engine, title string, p obsidian.Period, n int) (*vault.Note, error) {
	snap := e.Snapshot()
	c := e.Obsidian()
	c.SetDaily(s.opts.DailyNotes.Folder, s.opts.DailyNotes.Format)
	pn := c.Periodic[p]
	when := p.Shift(e.Now(), n)
	name := obsidian.FormatMoment(when, pn.Format)
	label := name
	if p == obsidian.Day {
		label = when.Format(time.DateOnly)
	}
	what := fmt.Sprintf("%s note for %s (%s)", p, strings.Join(strings.Fields(strings.ToLower(title)), " "), label)
	if pn.From == "" {
		if n := snap.Lookup(name); n != nil && n.Kind == vault.KindMarkdown {
			n, _ = currentNote(snap, n.Path)
			return n, nil
		}
		return nil, fmt.Errorf("%s not found: expected a note named %s.md (no %s notes folder configured in %s)", what, name, p, settingsFileFor(p))
	}
	want := path.Join(pn.Folder, name) + ".md"
	clean, ok := vault.CleanRelPath(want)
	if !ok {
		return nil, fmt.Errorf("%s not found: the %s notes folder/format gives %q, which is not a path inside the vault", what, p, want)
	}
	if n := snap.Note(clean); n != nil {
		clean = n.Path
	}
	note, _ := currentNote(snap, clean)
	if note == nil {
		return nil, fmt.Errorf("%s not found: expected %s", what, clean)
	}
	return note, nil
}

// settingsFileFor names the file that would configure p's notes.
func settingsFileFor(p obsidian.Period) string {
	if p == obsidian.Day {
		return obsidian.DailyFile
	}
	return obsidian.PeriodicFile
}
