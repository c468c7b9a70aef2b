package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func TestFormatMoment(t *testing.T) {
	day := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // a Monday
	for _, tt := range []struct{ format, want string }{
		{"YYYY-MM-DD", "2026-03-02"},
		{"YYYY/MM/YYYY-MM-DD", "2026/03/2026-03-02"},
		{"DD.MM.YY", "02.03.26"},
		{"dddd, MMMM Do YYYY", "Monday, March 2nd 2026"},
		{"ddd D MMM", "Mon 2 Mar"},
		{"[Week of] YYYY-M-D", "Week of 2026-3-2"},
		{"[Daily] YYYY-MM-DD [notes]", "Daily 2026-03-02 notes"},
		{"YYYY-MM-DD [unclosed", "2026-03-02 unclosed"},
		{"YYYY_MM_DD-x", "2026_03_02-x"},
	} {
		if got := formatMoment(day, tt.format); got != tt.want {
			t.Errorf("formatMoment(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
	for d, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 31: "31st"} {
		if got := ordinal(d); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", d, got, want)
		}
	}
}

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
