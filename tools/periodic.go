package tools

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// defaultDailyFormat is Obsidian's default daily note name.
const defaultDailyFormat = "YYYY-MM-DD"

// periodicOffset maps the periodic titles to a day offset from today.
func periodicOffset(title string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(title)) {
	case "today", "daily":
		return 0, true
	case "yesterday":
		return -1, true
	case "tomorrow":
		return 1, true
	}
	return 0, false
}

// dailyConfig is where daily notes live; configured reports whether it
// came from Options or .obsidian/daily-notes.json (else notes named
// YYYY-MM-DD are looked up anywhere).
type dailyConfig struct {
	folder, format string
	configured     bool
}

// maxConfigSize caps the read of an Obsidian settings file (a real
// daily-notes.json is under 200 bytes).
const maxConfigSize = 64 << 10

// dailyNotesConfig reads Options.DailyNotes, else the vault's
// .obsidian/daily-notes.json (read live: it is tiny and may change). The
// file is read through the vault handle, at most maxConfigSize bytes, and
// only if it is a regular file: a FIFO or device put there never blocks
// the read; any problem means Obsidian's defaults.
func (s *Server) dailyNotesConfig(snap *vault.Snapshot) dailyConfig {
	c := dailyConfig{folder: s.opts.DailyNotes.Folder, format: s.opts.DailyNotes.Format}
	if c.folder == "" && c.format == "" {
		raw, err := readConfig(snap, ".obsidian/daily-notes.json")
		if err != nil {
			return dailyConfig{format: defaultDailyFormat}
		}
		var file struct {
			Folder string `json:"folder"`
			Format string `json:"format"`
		}
		if err := json.Unmarshal(raw, &file); err != nil {
			return dailyConfig{format: defaultDailyFormat}
		}
		c.folder, c.format = file.Folder, file.Format
	}
	c.configured = true
	c.folder = strings.Trim(strings.ReplaceAll(strings.TrimSpace(c.folder), `\`, "/"), "/")
	if strings.TrimSpace(c.format) == "" {
		c.format = defaultDailyFormat
	}
	return c
}

// readConfig reads a small settings file of the vault (see
// dailyNotesConfig).
func readConfig(snap *vault.Snapshot, rel string) ([]byte, error) {
	fsys, err := snap.Files()
	if err != nil {
		return nil, err
	}
	raw, _, err := fsys.ReadFile(rel, maxConfigSize)
	return raw, err
}

// dailyNote finds the daily note of today+offset days. A missing note is
// a not-found error that names the path it expected.
func (s *Server) dailyNote(e *search.Engine, title string, offset int) (*vault.Note, error) {
	snap := e.Snapshot()
	day := e.Now().AddDate(0, 0, offset)
	c := s.dailyNotesConfig(snap)
	name := formatMoment(day, c.format)
	what := fmt.Sprintf("daily note for %s (%s)", strings.ToLower(strings.TrimSpace(title)), day.Format("2006-01-02"))
	if !c.configured {
		if n := snap.Lookup(name); n != nil && n.Kind == vault.KindMarkdown {
			n, _ = currentNote(snap, n.Path)
			return n, nil
		}
		return nil, fmt.Errorf("%s not found: expected a note named %s.md (no daily notes folder configured in .obsidian/daily-notes.json)", what, name)
	}
	want := path.Join(c.folder, name) + ".md"
	clean, ok := vault.CleanRelPath(want)
	if !ok {
		return nil, fmt.Errorf("%s not found: the daily notes folder/format gives %q, which is not a path inside the vault", what, want)
	}
	if n := snap.Note(clean); n != nil {
		clean = n.Path
	}
	n, _ := currentNote(snap, clean)
	if n == nil {
		return nil, fmt.Errorf("%s not found: expected %s", what, clean)
	}
	return n, nil
}

// formatMoment formats t with a moment.js format: YYYY, YY, MMMM, MMM,
// MM, M, Do, DD, D, dddd, ddd, [literal]; other characters are copied.
func formatMoment(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); {
		if format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			if end < 0 {
				b.WriteString(format[i+1:])
				break
			}
			b.WriteString(format[i+1 : i+end])
			i += end + 1
			continue
		}
		tok, val := momentToken(t, format[i:])
		if tok == 0 {
			b.WriteByte(format[i])
			i++
			continue
		}
		b.WriteString(val)
		i += tok
	}
	return b.String()
}

// momentToken matches the longest token at the start of s and returns its
// length and value (0 when none).
func momentToken(t time.Time, s string) (int, string) {
	tokens := []struct {
		tok string
		val func() string
	}{
		{"YYYY", func() string { return fmt.Sprintf("%04d", t.Year()) }},
		{"MMMM", func() string { return t.Month().String() }},
		{"dddd", func() string { return t.Weekday().String() }},
		{"MMM", func() string { return t.Month().String()[:3] }},
		{"ddd", func() string { return t.Weekday().String()[:3] }},
		{"YY", func() string { return fmt.Sprintf("%02d", t.Year()%100) }},
		{"MM", func() string { return fmt.Sprintf("%02d", int(t.Month())) }},
		{"DD", func() string { return fmt.Sprintf("%02d", t.Day()) }},
		{"Do", func() string { return ordinal(t.Day()) }},
		{"M", func() string { return strconv.Itoa(int(t.Month())) }},
		{"D", func() string { return strconv.Itoa(t.Day()) }},
	}
	for _, k := range tokens {
		if strings.HasPrefix(s, k.tok) {
			return len(k.tok), k.val()
		}
	}
	return 0, ""
}

// ordinal is moment's Do: 1st, 2nd, 3rd, 4th, 11th, 21st, …
func ordinal(d int) string {
	suffix := "th"
	if d/10%10 != 1 {
		switch d % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(d) + suffix
}
