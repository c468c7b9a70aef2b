package obsidian

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is a kind of periodic note.
type Period string

// The periods of the Periodic Notes plugin (Day is also core Daily notes).
const (
	Day     Period = "daily"
	Week    Period = "weekly"
	Month   Period = "monthly"
	Quarter Period = "quarterly"
	Year    Period = "yearly"
)

// Periods lists every Period, shortest first.
func Periods() []Period { return []Period{Day, Week, Month, Quarter, Year} }

// defaultFormat is the note name each plugin uses when none is set.
func (p Period) defaultFormat() string {
	switch p {
	case Week:
		return "gggg-[W]ww"
	case Month:
		return "YYYY-MM"
	case Quarter:
		return "YYYY-[Q]Q"
	case Year:
		return "YYYY"
	}
	return "YYYY-MM-DD"
}

// PeriodicNotes is where one period's notes live and how they are named.
type PeriodicNotes struct {
	Folder, Format string
	// From is the settings file that configured them; "" means nothing
	// did, and a note of that name is looked up anywhere in the vault.
	From string
}

// readPeriodic reads core Daily notes and the Periodic Notes plugin;
// core Daily notes decides the daily notes when both are set.
func (c *Config) readPeriodic(files Files) map[Period]PeriodicNotes {
	out := make(map[Period]PeriodicNotes, 5)
	for _, p := range Periods() {
		out[p] = PeriodicNotes{Format: p.defaultFormat()}
	}
	var plugin map[Period]struct {
		Folder  string `json:"folder"`
		Format  string `json:"format"`
		Enabled *bool  `json:"enabled"`
	}
	if c.readJSON(files, PeriodicFile, &plugin) {
		for _, p := range Periods() {
			s, ok := plugin[p]
			if !ok || (s.Enabled != nil && !*s.Enabled) {
				continue
			}
			out[p] = periodicNotes(p, s.Folder, s.Format, PeriodicFile)
		}
	}
	var daily struct {
		Folder string `json:"folder"`
		Format string `json:"format"`
	}
	if c.readJSON(files, DailyFile, &daily) {
		out[Day] = periodicNotes(Day, daily.Folder, daily.Format, DailyFile)
	}
	return out
}

func periodicNotes(p Period, folder, format, from string) PeriodicNotes {
	if strings.TrimSpace(format) == "" {
		format = p.defaultFormat()
	}
	return PeriodicNotes{Folder: cleanFolder(folder), Format: format, From: from}
}

// SetDaily overrides where daily notes are (a --daily-folder or
// --daily-format flag); empty arguments keep the settings.
func (c *Config) SetDaily(folder, format string) {
	if folder == "" && format == "" {
		return
	}
	d := periodicNotes(Day, folder, format, "flags")
	c.Periodic[Day] = d
}

// ParseRelative reads a periodic title: today, yesterday, tomorrow,
// daily, this/last/next week|month|quarter|year, weekly, monthly,
// quarterly, yearly. It returns the period and how many periods from the
// current one.
func ParseRelative(title string) (Period, int, bool) {
	t := strings.Join(strings.Fields(strings.ToLower(title)), " ")
	switch t {
	case "today", "daily":
		return Day, 0, true
	case "yesterday":
		return Day, -1, true
	case "tomorrow":
		return Day, 1, true
	}
	for _, p := range Periods()[1:] {
		unit := strings.TrimSuffix(string(p), "ly") // week, month, quarter, year
		switch t {
		case string(p), "this " + unit:
			return p, 0, true
		case "last " + unit, "previous " + unit:
			return p, -1, true
		case "next " + unit:
			return p, 1, true
		}
	}
	return "", 0, false
}

// Shift moves t by n periods. Months move from the first of the month,
// so that "last month" on 31 March is February.
func (p Period) Shift(t time.Time, n int) time.Time {
	switch p {
	case Week:
		return t.AddDate(0, 0, 7*n)
	case Month, Quarter:
		months := n
		if p == Quarter {
			months = 3 * n
		}
		first := time.Date(t.Year(), t.Month(), 1, 12, 0, 0, 0, t.Location())
		return first.AddDate(0, months, 0)
	case Year:
		return time.Date(t.Year()+n, 1, 1, 12, 0, 0, 0, t.Location())
	}
	return t.AddDate(0, 0, n)
}

// FormatMoment formats t with a moment.js format: YYYY, YY, gggg, gg,
// GGGG, GG, Q, MMMM, MMM, MM, M, ww, w, WW, W, Do, DD, D, dddd, ddd and
// [literal]; other characters are copied. gggg/ww are moment's default
// "en" locale weeks (Sunday first; week 1 holds 1 January), GGGG/WW ISO
// weeks.
func FormatMoment(t time.Time, format string) string {
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
		n, val := momentToken(t, format[i:])
		if n == 0 {
			b.WriteByte(format[i])
			i++
			continue
		}
		b.WriteString(val)
		i += n
	}
	return b.String()
}

// momentToken matches the longest token at the start of s and returns its
// length and value (0 when none).
func momentToken(t time.Time, s string) (int, string) {
	isoYear, isoWeek := t.ISOWeek()
	weekYear, week := localeWeek(t)
	tokens := []struct {
		tok string
		val func() string
	}{
		{"YYYY", func() string { return fmt.Sprintf("%04d", t.Year()) }},
		{"gggg", func() string { return fmt.Sprintf("%04d", weekYear) }},
		{"GGGG", func() string { return fmt.Sprintf("%04d", isoYear) }},
		{"MMMM", func() string { return t.Month().String() }},
		{"dddd", func() string { return t.Weekday().String() }},
		{"MMM", func() string { return t.Month().String()[:3] }},
		{"ddd", func() string { return t.Weekday().String()[:3] }},
		{"YY", func() string { return fmt.Sprintf("%02d", t.Year()%100) }},
		{"gg", func() string { return fmt.Sprintf("%02d", weekYear%100) }},
		{"GG", func() string { return fmt.Sprintf("%02d", isoYear%100) }},
		{"MM", func() string { return fmt.Sprintf("%02d", int(t.Month())) }},
		{"DD", func() string { return fmt.Sprintf("%02d", t.Day()) }},
		{"Do", func() string { return ordinal(t.Day()) }},
		{"ww", func() string { return fmt.Sprintf("%02d", week) }},
		{"WW", func() string { return fmt.Sprintf("%02d", isoWeek) }},
		{"M", func() string { return strconv.Itoa(int(t.Month())) }},
		{"D", func() string { return strconv.Itoa(t.Day()) }},
		{"w", func() string { return strconv.Itoa(week) }},
		{"W", func() string { return strconv.Itoa(isoWeek) }},
		{"Q", func() string { return strconv.Itoa((int(t.Month())-1)/3 + 1) }},
	}
	for _, k := range tokens {
		if strings.HasPrefix(s, k.tok) {
			return len(k.tok), k.val()
		}
	}
	return 0, ""
}

// localeWeek is moment's "en" week-year and week: weeks start on Sunday,
// and week 1 is the one holding 1 January.
func localeWeek(t time.Time) (year, week int) {
	day := time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, time.UTC)
	sat := day.AddDate(0, 0, 6-int(day.Weekday()))
	year = sat.Year()
	jan1 := time.Date(year, 1, 1, 12, 0, 0, 0, time.UTC)
	firstSat := jan1.AddDate(0, 0, 6-int(jan1.Weekday()))
	return year, int(sat.Sub(firstSat).Hours()/24)/7 + 1
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
