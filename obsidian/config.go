// Package obsidian reads the settings Obsidian itself keeps in a vault's
// .obsidian folder and that change what a search or a lookup should
// return: the excluded files, the templates folder, the trash option and
// the daily and periodic notes. Every file is small, read through the
// vault's confined handle and re-read on each use, so an edit made in
// Obsidian applies at once; a missing or malformed file means Obsidian's
// default for what it configures.
package obsidian

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// Files reads a vault file, at most max bytes (vault.FS satisfies it).
type Files interface {
	ReadFile(rel string, max int64) ([]byte, fs.FileInfo, error)
}

// maxConfigSize caps the read of one settings file (a real app.json is a
// few hundred bytes).
const maxConfigSize = 256 << 10

// The settings files this package reads.
const (
	AppFile       = ".obsidian/app.json"
	TemplatesFile = ".obsidian/templates.json"
	TemplaterFile = ".obsidian/plugins/templater-obsidian/data.json"
	DailyFile     = ".obsidian/daily-notes.json"
	PeriodicFile  = ".obsidian/plugins/periodic-notes/data.json"
)

// DefaultTemplates is the folder taken as the templates folder when no
// setting names one: the name Obsidian's Templates plugin suggests.
const DefaultTemplates = "Templates"

// Trash options (app.json "trashOption").
const (
	TrashSystem = "system" // the operating system's trash (Obsidian's default)
	TrashLocal  = "local"  // the vault's .trash folder
	TrashNone   = "none"   // deleted for good
)

// Config is what a vault's Obsidian settings say.
type Config struct {
	// Ignore are Settings → Files and links → Excluded files
	// (app.json "userIgnoreFilters"): path prefixes, or /regex/.
	Ignore []IgnoreFilter
	// Templates is the templates folder ("" for none) and TemplatesFrom
	// the file that named it (or "" when it is DefaultTemplates, found
	// in the vault without a setting).
	Templates, TemplatesFrom string
	// Trash is TrashSystem, TrashLocal or TrashNone.
	Trash string
	// Periodic are the daily, weekly, monthly, quarterly and yearly
	// notes' folders and formats, by Period.
	Periodic map[Period]PeriodicNotes
	// Read lists the settings files found and read; Problems says what
	// could not be used and why.
	Read, Problems []string
}

// IgnoreFilter is one excluded-files entry.
type IgnoreFilter struct {
	Text string
	re   *regexp.Regexp // for a /regex/ entry
}

// Match reports whether a vault-relative path is excluded by f, as
// Obsidian matches: a /regex/ entry is searched in the path, any other
// entry is a prefix of it.
func (f IgnoreFilter) Match(p string) bool {
	if f.re != nil {
		return f.re.MatchString(p)
	}
	return f.Text != "" && strings.HasPrefix(p, f.Text)
}

// Read reads the vault's settings. hasFolder reports whether a folder
// exists in the vault (for DefaultTemplates); nil means none does.
func Read(files Files, hasFolder func(string) bool) Config {
	c := Config{Trash: TrashSystem}
	var app struct {
		UserIgnoreFilters []string `json:"userIgnoreFilters"`
		TrashOption       string   `json:"trashOption"`
	}
	if c.readJSON(files, AppFile, &app) {
		for _, t := range app.UserIgnoreFilters {
			f, err := parseIgnore(t)
			if err != nil {
				c.Problems = append(c.Problems, AppFile+": excluded files entry "+t+": "+err.Error())
				continue
			}
			c.Ignore = append(c.Ignore, f)
		}
		switch app.TrashOption {
		case TrashLocal, TrashNone, TrashSystem:
			c.Trash = app.TrashOption
		case "":
		default:
			c.Problems = append(c.Problems, AppFile+": unknown trashOption "+app.TrashOption+" (the system trash is used)")
		}
	}
	var tpl struct {
		Folder string `json:"folder"`
	}
	var templater struct {
		Folder string `json:"templates_folder"`
	}
	switch {
	case c.readJSON(files, TemplatesFile, &tpl) && cleanFolder(tpl.Folder) != "":
		c.Templates, c.TemplatesFrom = cleanFolder(tpl.Folder), TemplatesFile
	case c.readJSON(files, TemplaterFile, &templater) && cleanFolder(templater.Folder) != "":
		c.Templates, c.TemplatesFrom = cleanFolder(templater.Folder), TemplaterFile
	case hasFolder != nil && hasFolder(DefaultTemplates):
		c.Templates = DefaultTemplates
	}
	c.Periodic = c.readPeriodic(files)
	return c
}

// readJSON decodes one settings file into v; false when it is absent or
// unusable (a problem is recorded for a file that exists but is bad).
func (c *Config) readJSON(files Files, rel string, v any) bool {
	raw, _, err := files.ReadFile(rel, maxConfigSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.Problems = append(c.Problems, rel+": "+err.Error())
		}
		return false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		c.Problems = append(c.Problems, rel+": "+err.Error())
		return false
	}
	c.Read = append(c.Read, rel)
	return true
}

// parseIgnore turns an excluded-files entry into a filter. Go's regexp is
// RE2: an entry using look-around or back-references is reported, not
// guessed at.
func parseIgnore(t string) (IgnoreFilter, error) {
	if len(t) > 2 && strings.HasPrefix(t, "/") && strings.HasSuffix(t, "/") {
		re, err := regexp.Compile(t[1 : len(t)-1])
		if err != nil {
			return IgnoreFilter{}, err
		}
		return IgnoreFilter{Text: t, re: re}, nil
	}
	return IgnoreFilter{Text: strings.TrimPrefix(strings.ReplaceAll(t, `\`, "/"), "./")}, nil
}

// cleanFolder makes a folder setting vault-relative without slashes at
// either end ("" for the vault root or nothing).
func cleanFolder(f string) string {
	f = strings.Trim(strings.ReplaceAll(strings.TrimSpace(f), `\`, "/"), "/")
	if f == "" || f == "." {
		return ""
	}
	return path.Clean(f)
}

// Excluded says why Obsidian keeps p out of search: "excluded files" for
// an Excluded files entry, "templates" for the templates folder, "" when
// it does not.
func (c Config) Excluded(p string) string {
	if c.Templates != "" && len(p) > len(c.Templates) && p[len(c.Templates)] == '/' && strings.EqualFold(p[:len(c.Templates)], c.Templates) {
		return "templates"
	}
	for _, f := range c.Ignore {
		if f.Match(p) {
			return "excluded files"
		}
	}
	return ""
}

// HasExclusions reports whether Excluded can say anything but "".
func (c Config) HasExclusions() bool { return c.Templates != "" || len(c.Ignore) > 0 }
