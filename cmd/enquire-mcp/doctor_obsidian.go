package main

import (
	"fmt"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/obsidian"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// obsidianCheck reports the vault's own Obsidian settings that searches
// and lookups follow, and what they do.
func obsidianCheck(snap *vault.Snapshot) (check, obsidian.Config) {
	c := check{Name: "obsidian", Status: statusInfo}
	files, err := snap.Files()
	if err != nil {
		c.Detail = "settings not read: " + err.Error()
		return c, obsidian.Config{}
	}
	cfg := obsidian.Read(files, func(f string) bool { return len(snap.Under(f)) > 0 })
	if len(cfg.Read) == 0 {
		c.Detail = "no Obsidian settings found in .obsidian: Obsidian's defaults apply"
	} else {
		c.Detail = "read " + strings.Join(cfg.Read, ", ")
	}
	hidden := 0
	for _, n := range snap.Notes {
		if cfg.Excluded(n.Path) != "" {
			hidden++
		}
	}
	if len(cfg.Ignore) > 0 {
		texts := make([]string, len(cfg.Ignore))
		for i, f := range cfg.Ignore {
			texts[i] = f.Text
		}
		c.Items = append(c.Items, fmt.Sprintf("excluded files: %s", strings.Join(texts, ", ")))
	}
	switch {
	case cfg.Templates != "" && cfg.TemplatesFrom != "":
		c.Items = append(c.Items, fmt.Sprintf("templates folder: %s (from %s)", cfg.Templates, cfg.TemplatesFrom))
	case cfg.Templates != "":
		c.Items = append(c.Items, fmt.Sprintf("templates folder: %s (no setting names one; the folder of that name is taken)", cfg.Templates))
	}
	if cfg.HasExclusions() {
		c.Items = append(c.Items, fmt.Sprintf("%d notes left out of search, as Obsidian does (include_excluded / --include-excluded searches them)", hidden))
	}
	c.Items = append(c.Items, "trash option: "+cfg.Trash)
	for _, p := range obsidian.Periods() {
		pn := cfg.Periodic[p]
		if pn.From == "" {
			continue
		}
		where := pn.Format
		if pn.Folder != "" {
			where = pn.Folder + "/" + pn.Format
		}
		c.Items = append(c.Items, fmt.Sprintf("%s notes: %s (from %s)", p, where, pn.From))
	}
	if len(cfg.Problems) > 0 {
		c.Status = statusWarn
		c.Items = append(c.Items, cfg.Problems...)
		c.Fix = "fix the settings named above in Obsidian; until then the entries that cannot be read are ignored"
	}
	return c, cfg
}
