package obsidian

import (
	"io/fs"
	"slices"
	"testing"
	"testing/fstest"
	"time"
)

// mapFiles serves settings files from memory.
type mapFiles fstest.MapFS

func (m mapFiles) ReadFile(rel string, max int64) ([]byte, fs.FileInfo, error) {
	f, ok := m[rel]
	if !ok {
		return nil, nil, fs.ErrNotExist
	}
	return f.Data, nil, nil
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestExcluded(t *testing.T) {
	tests := []struct {
		name    string
		files   mapFiles
		folders []string
		want    map[string]string // path → reason
		trash   string
	}{
		{"no settings, no Templates folder", mapFiles{}, nil,
			map[string]string{"Templates/Book.md": "", "a.md": ""}, TrashSystem},
		{"no settings, a Templates folder", mapFiles{}, []string{"Templates"},
			map[string]string{"Templates/Book.md": "templates", "templates/x.md": "templates", "Templates.md": "", "Notes/Templates/x.md": ""}, TrashSystem},
		{"core templates folder wins", mapFiles{TemplatesFile: file(`{"folder":"Meta/Tpl/"}`), TemplaterFile: file(`{"templates_folder":"Other"}`)}, []string{"Templates"},
			map[string]string{"Meta/Tpl/Day.md": "templates", "Templates/Book.md": "", "Other/x.md": ""}, TrashSystem},
		{"templater folder", mapFiles{TemplaterFile: file(`{"templates_folder":"_templates"}`)}, nil,
			map[string]string{"_templates/x.md": "templates"}, TrashSystem},
		{"excluded files: prefixes and a regex", mapFiles{AppFile: file(`{"userIgnoreFilters":["Archive/","Old","/\\.draft\\.md$/"],"trashOption":"local"}`)}, nil,
			map[string]string{"Archive/a.md": "excluded files", "Older notes/b.md": "excluded files", "x/y.draft.md": "excluded files", "archive/a.md": "", "Notes/Archive/a.md": ""}, TrashLocal},
		{"bad regex reported, other entries kept", mapFiles{AppFile: file(`{"userIgnoreFilters":["/(?<=x)y/","Junk/"],"trashOption":"none"}`)}, nil,
			map[string]string{"Junk/a.md": "excluded files", "xy.md": ""}, TrashNone},
		{"malformed app.json means defaults", mapFiles{AppFile: file(`{"userIgnoreFilters":`)}, nil,
			map[string]string{"a.md": ""}, TrashSystem},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Read(tt.files, func(f string) bool { return slices.Contains(tt.folders, f) })
			for p, want := range tt.want {
				if got := c.Excluded(p); got != want {
					t.Errorf("Excluded(%q) = %q, want %q", p, got, want)
				}
			}
			if c.Trash != tt.trash {
				t.Errorf("Trash = %q, want %q", c.Trash, tt.trash)
			}
		})
	}
	c := Read(mapFiles{AppFile: file(`{"userIgnoreFilters":["/(?<=x)y/"]}`)}, nil)
	if len(c.Problems) != 1 || !slices.Equal(c.Read, []string{AppFile}) {
		t.Fatalf("problems %q, read %q", c.Problems, c.Read)
	}
}

func TestPeriodicSettings(t *testing.T) {
	files := mapFiles{
		PeriodicFile: file(`{"daily":{"format":"DD.MM.YYYY","folder":"P/Daily","enabled":true},"weekly":{"format":"GGGG-[W]WW","folder":"P/Weekly/","enabled":true},"monthly":{"enabled":false,"folder":"M"}}`),
		DailyFile:    file(`{"folder":"Journal","format":"YYYY-MM-DD"}`),
	}
	c := Read(files, nil)
	want := map[Period]PeriodicNotes{
		Day:     {Folder: "Journal", Format: "YYYY-MM-DD", From: DailyFile},
		Week:    {Folder: "P/Weekly", Format: "GGGG-[W]WW", From: PeriodicFile},
		Month:   {Format: "YYYY-MM"},
		Quarter: {Format: "YYYY-[Q]Q"},
		Year:    {Format: "YYYY"},
	}
	for p, w := range want {
		if c.Periodic[p] != w {
			t.Errorf("%s: %+v, want %+v", p, c.Periodic[p], w)
		}
	}
}

func TestParseRelative(t *testing.T) {
	tests := []struct {
		title  string
		period Period
		n      int
		ok     bool
	}{
		{"today", Day, 0, true}, {"Yesterday", Day, -1, true}, {"tomorrow", Day, 1, true}, {"daily", Day, 0, true},
		{"this week", Week, 0, true}, {"last  week", Week, -1, true}, {"Next Week", Week, 1, true}, {"weekly", Week, 0, true},
		{"last month", Month, -1, true}, {"monthly", Month, 0, true}, {"previous quarter", Quarter, -1, true},
		{"quarterly", Quarter, 0, true}, {"next year", Year, 1, true}, {"yearly", Year, 0, true},
		{"last decade", "", 0, false}, {"week", "", 0, false}, {"", "", 0, false},
	}
	for _, tt := range tests {
		p, n, ok := ParseRelative(tt.title)
		if p != tt.period || n != tt.n || ok != tt.ok {
			t.Errorf("ParseRelative(%q) = %q %d %v, want %q %d %v", tt.title, p, n, ok, tt.period, tt.n, tt.ok)
		}
	}
}

func TestFormatMoment(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 9, 0, 0, 0, time.UTC) }
	tests := []struct {
		t      time.Time
		format string
		want   string
	}{
		{day(2026, 11, 28), "YYYY-MM-DD", "2026-11-28"},
		{day(2026, 11, 28), "dddd, MMMM Do YYYY", "Saturday, November 28th 2026"},
		{day(2026, 11, 28), "gggg-[W]ww", "2026-W48"},
		{day(2026, 11, 29), "gggg-[W]ww", "2026-W49"}, // a Sunday starts the locale week
		{day(2026, 11, 29), "GGGG-[W]WW", "2026-W48"}, // but not the ISO one
		{day(2026, 12, 31), "gggg-[W]ww", "2027-W01"}, // the week holding 1 January is week 1
		{day(2027, 1, 1), "GGGG-[W]WW", "2026-W53"},
		{day(2026, 11, 28), "YYYY-[Q]Q", "2026-Q4"},
		{day(2026, 2, 3), "YY/M/D w W", "26/2/3 6 6"},
		{day(2026, 1, 1), "[Unclosed", "Unclosed"},
		{day(2026, 3, 2), "YYYY/MM/YYYY-MM-DD", "2026/03/2026-03-02"},
		{day(2026, 3, 2), "DD.MM.YY", "02.03.26"},
		{day(2026, 3, 2), "ddd D MMM", "Mon 2 Mar"},
		{day(2026, 3, 2), "[Week of] YYYY-M-D", "Week of 2026-3-2"},
		{day(2026, 3, 2), "YYYY-MM-DD [unclosed", "2026-03-02 unclosed"},
		{day(2026, 3, 2), "YYYY_MM_DD-x", "2026_03_02-x"},
	}
	for _, tt := range tests {
		if got := FormatMoment(tt.t, tt.format); got != tt.want {
			t.Errorf("FormatMoment(%s, %q) = %q, want %q", tt.t.Format(time.DateOnly), tt.format, got, tt.want)
		}
	}
}

func TestShift(t *testing.T) {
	mar31 := time.Date(2026, 3, 31, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		p    Period
		n    int
		want string
	}{
		{Day, -1, "2026-03-30"}, {Week, -1, "2026-03-24"}, {Month, -1, "2026-02-01"},
		{Quarter, 1, "2026-06-01"}, {Year, -1, "2025-01-01"},
	}
	for _, tt := range tests {
		if got := tt.p.Shift(mar31, tt.n).Format(time.DateOnly); got != tt.want {
			t.Errorf("%s.Shift(%d) = %s, want %s", tt.p, tt.n, got, tt.want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for d, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 31: "31st"} {
		if got := ordinal(d); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", d, got, want)
		}
	}
}
