package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func TestReadNotePeriodic(t *testing.T) {
	now := time.Date(2026, 3, 10, 18, 30, 0, 0, time.UTC) // a Tuesday
	plain := vaulttest.Copy(t, "../testdata/vault")

	configured := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, configured, ".obsidian/daily-notes.json", `{"folder": "/Journal/", "format": "YYYY/MMMM/[Day] DD ddd", "template": ""}`)
	writeFile(t, configured, "Journal/2026/March/Day 10 Tue.md", "# Today\n\nwrote tests\n")
	writeFile(t, configured, "Journal/2026/March/Day 09 Mon.md", "# Yesterday\n")

	literal := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, literal, "Today.md", "# A note called Today\n")

	noFormat := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, noFormat, ".obsidian/daily-notes.json", `{"folder": "Daily"}`)

	periodic := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, periodic, ".obsidian/plugins/periodic-notes/data.json", `{"weekly": {"enabled": true, "folder": "Periodic/Weeks", "format": "GGGG-[W]WW"}, "monthly": {"enabled": true, "folder": "Periodic", "format": "YYYY-MM"}, "quarterly": {"enabled": false}}`)
	writeFile(t, periodic, "Periodic/Weeks/2026-W11.md", "# This week\n")
	writeFile(t, periodic, "Periodic/Weeks/2026-W10.md", "# Last week\n")
	writeFile(t, periodic, "Periodic/2026-02.md", "# February\n")
	writeFile(t, periodic, "2026-Q1.md", "# First quarter\n")

	tests := []struct {
		name    string
		dir     string
		opts    Options
		title   string
		want    string // path, or the error's text
		wantErr bool
	}{
		{"today by name", plain, Options{}, "today", "Daily/2026-03-10.md", false},
		{"daily is today", plain, Options{}, "Daily", "Daily/2026-03-10.md", false},
		{"missing yesterday", plain, Options{}, "yesterday", "daily note for yesterday (2026-03-09) not found: expected a note named 2026-03-09.md", true},
		{"configured today", configured, Options{}, "TODAY", "Journal/2026/March/Day 10 Tue.md", false},
		{"configured yesterday", configured, Options{}, "yesterday", "Journal/2026/March/Day 09 Mon.md", false},
		{"configured tomorrow missing", configured, Options{}, "tomorrow", "daily note for tomorrow (2026-03-11) not found: expected Journal/2026/March/Day 11 Wed.md", true},
		{"a note named Today wins", literal, Options{}, "today", "Today.md", false},
		{"options win over the vault config", configured, Options{DailyNotes: DailyNotes{Folder: "Daily", Format: "YYYY-MM-DD"}}, "today", "Daily/2026-03-10.md", false},
		{"options folder, default format", plain, Options{DailyNotes: DailyNotes{Folder: "Daily"}}, "today", "Daily/2026-03-10.md", false},
		{"options elsewhere", plain, Options{DailyNotes: DailyNotes{Folder: "Journal"}}, "today", "expected Journal/2026-03-10.md", true},
		{"vault config without format", noFormat, Options{}, "today", "Daily/2026-03-10.md", false},
		{"config escaping the vault", plain, Options{DailyNotes: DailyNotes{Folder: "../outside"}}, "today", "not a path inside the vault", true},
		{"this week", periodic, Options{}, "this week", "Periodic/Weeks/2026-W11.md", false},
		{"last week", periodic, Options{}, "Last Week", "Periodic/Weeks/2026-W10.md", false},
		{"weekly is this week", periodic, Options{}, "weekly", "Periodic/Weeks/2026-W11.md", false},
		{"last month", periodic, Options{}, "last month", "Periodic/2026-02.md", false},
		{"this month missing", periodic, Options{}, "this month", "monthly note for this month (2026-03) not found: expected Periodic/2026-03.md", true},
		{"quarter not configured: by name", periodic, Options{}, "this quarter", "2026-Q1.md", false},
		{"year not configured, missing", periodic, Options{}, "last year", "yearly note for last year (2025) not found: expected a note named 2025.md (no yearly notes folder configured in .obsidian/plugins/periodic-notes/data.json)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connectTo(t, New(engineAt(t, tt.dir, now, vault.Options{}), tt.opts))
			res := call(t, cs, "obsidian_read_note", map[string]any{"title": tt.title})
			if tt.wantErr {
				if !res.IsError || !strings.Contains(text(res), tt.want) {
					t.Fatalf("IsError=%v %q, want %q", res.IsError, text(res), tt.want)
				}
				return
			}
			if out := decode[ReadNoteOutput](t, res); out.Path != tt.want {
				t.Fatalf("path %q, want %q", out.Path, tt.want)
			}
		})
	}
}

func TestReadNotePeriodicCreatedAfterLoad(t *testing.T) {
	now := time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
	dir := vaulttest.Copy(t, "../testdata/vault")
	writeFile(t, dir, ".obsidian/daily-notes.json", `{"folder": "Daily", "format": "YYYY-MM-DD"}`)
	cs := connectTo(t, New(engineAt(t, dir, now, vault.Options{}), Options{}))
	if res := call(t, cs, "obsidian_read_note", map[string]any{"title": "today"}); !res.IsError || !strings.Contains(text(res), "expected Daily/2026-03-11.md") {
		t.Fatalf("before: %q", text(res))
	}
	writeFile(t, dir, "Daily/2026-03-11.md", "# New day\n\n## Plan\n\nship it\n")
	out := decode[ReadNoteOutput](t, call(t, cs, "obsidian_read_note", map[string]any{"title": "today", "section": "plan"}))
	if out.Path != "Daily/2026-03-11.md" || out.Body != "## Plan\n\nship it" {
		t.Fatalf("after: %+v", out)
	}
}
