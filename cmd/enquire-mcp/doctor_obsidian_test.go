package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

func TestDoctorObsidianSettings(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		status string
		items  []string // each must appear in one item
	}{
		{"defaults with a Templates folder", map[string]string{"Templates/Day.md": "---\ndate: {{date}}\n---\n"}, statusInfo,
			[]string{"templates folder: Templates (no setting", "1 notes left out of search", "trash option: system"}},
		{"settings applied", map[string]string{
			".obsidian/app.json":                         `{"userIgnoreFilters": ["Archive/"], "trashOption": "local"}`,
			".obsidian/templates.json":                   `{"folder": "Meta"}`,
			".obsidian/plugins/periodic-notes/data.json": `{"weekly": {"enabled": true, "folder": "W", "format": "gggg-[W]ww"}}`,
			"Archive/a.md":                               "old", "Meta/t.md": "template"}, statusInfo,
			[]string{"excluded files: Archive/", "templates folder: Meta (from .obsidian/templates.json)", "2 notes left out", "trash option: local", "weekly notes: W/gggg-[W]ww (from .obsidian/plugins/periodic-notes/data.json)"}},
		{"an entry Go cannot read", map[string]string{".obsidian/app.json": `{"userIgnoreFilters": ["/(?!x)/"]}`}, statusWarn,
			[]string{".obsidian/app.json: excluded files entry /(?!x)/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.files["note.md"] = "# A note\n"
			for p, text := range tt.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := vault.Load(context.Background(), dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, cfg := obsidianCheck(snap)
			if c.Status != tt.status {
				t.Errorf("status %s, want %s", c.Status, tt.status)
			}
			all := strings.Join(c.Items, "\n")
			for _, want := range tt.items {
				if !strings.Contains(all, want) {
					t.Errorf("items lack %q:\n%s", want, all)
				}
			}
			if p := parseWarnings(snap.Warnings, cfg); p.Status != statusOK {
				t.Errorf("template syntax counted as a parse warning: %+v", p)
			}
		})
	}
}
