package dataview

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// parsedDate is a Dataview date literal (YYYY-MM[-DD[THH[:mm[:ss[.SSS]]]]]
// with an optional zone) before it is placed in a time zone.
type parsedDate struct {
	year, month, day, hour, min, sec, ms int
	zone                                 *time.Location // nil: the run's zone
}

// in returns the date's instant; the wall clock is read in zone unless the
// text named its own.
func (d parsedDate) in(zone *time.Location) time.Time {
	if d.zone != nil {
		zone = d.zone
	}
	return time.Date(d.year, time.Month(d.month), d.day, d.hour, d.min, d.sec, d.ms*int(time.Millisecond), zone)
}

// scanDate reads a date at the start of s the way Dataview does: each
// further part is optional, and a part that does not match ends the date
// (the caller decides whether leftover text is an error). It returns the
// bytes consumed; ok is false when s does not start with a valid date.
func scanDate(s string) (d parsedDate, n int, ok bool) {
	digits := func(at, count int) (int, bool) {
		if at+count > len(s) {
			return 0, false
		}
		v := 0
		for i := at; i < at+count; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	var good bool
	if d.year, good = digits(0, 4); !good || len(s) < 5 || s[4] != '-' {
		return d, 0, false
	}
	if d.month, good = digits(5, 2); !good {
		return d, 0, false
	}
	d.day, n = 1, 7
	for _, part := range []struct {
		sep   byte
		count int
		dst   *int
	}{{'-', 2, &d.day}, {'T', 2, &d.hour}, {':', 2, &d.min}, {':', 2, &d.sec}, {'.', 3, &d.ms}} {
		if n >= len(s) || s[n] != part.sep {
			break
		}
		v, good := digits(n+1, part.count)
		if !good {
			break
		}
		*part.dst, n = v, n+1+part.count
	}
	if zone, used := scanZone(s[n:]); used > 0 {
		d.zone, n = zone, n+used
	}
	return d, n, validDate(d)
}

// scanZone reads "Z", "+HH[:MM]", "-H" or "[Area/City]".
func scanZone(s string) (*time.Location, int) {
	switch {
	case s == "":
		return nil, 0
	case s[0] == 'Z':
		return time.UTC, 1
	case s[0] == '+' || s[0] == '-':
		i := 1
		for i < len(s) && i < 3 && isDigit(s[i]) {
			i++
		}
		if i == 1 {
			return nil, 0
		}
		hours, _ := strconv.Atoi(s[1:i])
		mins := 0
		if i+2 < len(s) && s[i] == ':' && isDigit(s[i+1]) && isDigit(s[i+2]) {
			mins, _ = strconv.Atoi(s[i+1 : i+3])
			i += 3
		}
		off := (hours*60 + mins) * 60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone("", off), i
	case s[0] == '[':
		end := strings.IndexByte(s, ']')
		if end < 2 {
			return nil, 0
		}
		loc, err := time.LoadLocation(s[1:end])
		if err != nil {
			return nil, 0
		}
		return loc, end + 1
	}
	return nil, 0
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func validDate(d parsedDate) bool {
	if d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysIn(d.year, d.month) {
		return false
	}
	return d.hour < 24 && d.min < 60 && d.sec < 60
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseDateString is Dataview's reading of a text value as a date: the
// whole text must be a date.
func parseDateString(s string) (parsedDate, bool) {
	d, n, ok := scanDate(s)
	return d, ok && n == len(s)
}

// dateWords are the date(…) shorthands, longest first so "start-of-week"
// wins over shorter prefixes.
var dateWords = []string{
	"start-of-month", "start-of-week", "start-of-year", "end-of-month", "end-of-week", "end-of-year",
	"yesterday", "tomorrow", "today", "now", "sow", "eow", "som", "eom", "soy", "eoy",
}

// dateWord computes a shorthand relative to now (in now's zone); weeks
// start on Monday.
func dateWord(word string, now time.Time) time.Time {
	y, m, d := now.Date()
	loc := now.Location()
	day := time.Date(y, m, d, 0, 0, 0, 0, loc)
	weekStart := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	endOf := func(next time.Time) time.Time { return next.Add(-time.Millisecond) }
	switch word {
	case "now":
		return now
	case "today":
		return day
	case "yesterday":
		return day.AddDate(0, 0, -1)
	case "tomorrow":
		return day.AddDate(0, 0, 1)
	case "sow", "start-of-week":
		return weekStart
	case "eow", "end-of-week":
		return endOf(weekStart.AddDate(0, 0, 7))
	case "som", "start-of-month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	case "eom", "end-of-month":
		return endOf(time.Date(y, m+1, 1, 0, 0, 0, 0, loc))
	case "soy", "start-of-year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	default: // "eoy", "end-of-year"
		return endOf(time.Date(y+1, 1, 1, 0, 0, 0, 0, loc))
	}
}

// Duration is a Dataview duration: an amount of each calendar and clock
// unit, kept apart as Luxon does (a month is not a fixed length).
type Duration struct {
	Years, Months, Weeks, Days, Hours, Minutes, Seconds, Millis float64
}

// durationUnits maps every unit name Dataview accepts, longest first (the
// first prefix that matches wins).
var durationUnits = []struct {
	name string
	unit int // index into Duration.parts
}{
	{"minutes", 5}, {"seconds", 6}, {"minute", 5}, {"months", 1}, {"second", 6},
	{"hours", 4}, {"month", 1}, {"weeks", 2}, {"years", 0},
	{"days", 3}, {"hour", 4}, {"mins", 5}, {"secs", 6}, {"week", 2}, {"year", 0},
	{"day", 3}, {"hrs", 4}, {"min", 5}, {"mos", 1}, {"sec", 6}, {"wks", 2}, {"yrs", 0},
	{"hr", 4}, {"mo", 1}, {"wk", 2}, {"yr", 0},
	{"d", 3}, {"h", 4}, {"m", 5}, {"s", 6}, {"w", 2},
}

func (d *Duration) parts() [8]*float64 {
	return [8]*float64{&d.Years, &d.Months, &d.Weeks, &d.Days, &d.Hours, &d.Minutes, &d.Seconds, &d.Millis}
}

// scanDuration reads "7 days", "1h 30m", "1 s, 2 m" at the start of s and
// returns the bytes consumed (0 when s does not start with one).
func scanDuration(s string) (Duration, int) {
	var d Duration
	n, parts := 0, 0
	for {
		at := n
		if parts > 0 { // separator: optional spaces, optionally one comma
			at = skipSpaces(s, at)
			if at < len(s) && s[at] == ',' {
				at = skipSpaces(s, at+1)
			}
		}
		num, used := scanNumber(s[at:])
		if used == 0 {
			return d, n
		}
		at = skipSpaces(s, at+used)
		unit := -1
		for _, u := range durationUnits {
			if strings.HasPrefix(s[at:], u.name) {
				unit, at = u.unit, at+len(u.name)
				break
			}
		}
		if unit < 0 {
			return d, n
		}
		*d.parts()[unit] += num
		n, parts = at, parts+1
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// scanNumber reads -?[0-9]+(\.[0-9]+)? at the start of s.
func scanNumber(s string) (float64, int) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start {
		return 0, 0
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, 0
	}
	return v, i
}

// parseDurationString reads a whole text as a duration.
func parseDurationString(s string) (Duration, bool) {
	d, n := scanDuration(s)
	return d, n > 0 && n == len(s)
}

// millis converts with Luxon's casual lengths: a year is 365 days, a month
// 30 days.
func (d Duration) millis() float64 {
	const day = 24 * 3600 * 1000.0
	return d.Years*365*day + d.Months*30*day + d.Weeks*7*day + d.Days*day +
		d.Hours*3600*1000 + d.Minutes*60*1000 + d.Seconds*1000 + d.Millis
}

func (d Duration) scale(f float64) Duration {
	out := d
	for _, p := range out.parts() {
		*p *= f
	}
	return out
}

func (d Duration) plus(o Duration) Duration {
	out := d
	op := o.parts()
	for i, p := range out.parts() {
		*p += *op[i]
	}
	return out
}

// addDuration moves t by d the way Luxon does: whole years and months
// first (clamping the day to the month's length), then whole weeks and
// days on the calendar, then everything else as exact time.
func addDuration(t time.Time, d Duration) time.Time {
	whole := func(v float64) int { return int(math.Trunc(v)) }
	y := t.Year() + whole(d.Years)
	m := int(t.Month()) + whole(d.Months)
	y += (m - 1) / 12
	if m = (m-1)%12 + 1; m < 1 {
		m += 12
		y--
	}
	day := min(t.Day(), daysIn(y, m)) + whole(d.Days) + whole(d.Weeks)*7
	out := time.Date(y, time.Month(m), day, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	rest := Duration{
		Years: d.Years - math.Trunc(d.Years), Months: d.Months - math.Trunc(d.Months),
		Weeks: d.Weeks - math.Trunc(d.Weeks), Days: d.Days - math.Trunc(d.Days),
		Hours: d.Hours, Minutes: d.Minutes, Seconds: d.Seconds, Millis: d.Millis,
	}
	return out.Add(time.Duration(rest.millis() * float64(time.Millisecond)))
}

// diffDates is a − b in years, months, days and clock units.
func diffDates(a, b time.Time) Duration {
	if a.Before(b) {
		return diffDates(b, a).scale(-1)
	}
	b = b.In(a.Location())
	var d Duration
	years := a.Year() - b.Year()
	for years > 0 && addDuration(b, Duration{Years: float64(years)}).After(a) {
		years--
	}
	cur := addDuration(b, Duration{Years: float64(years)})
	months := (a.Year()-cur.Year())*12 + int(a.Month()) - int(cur.Month())
	for months > 0 && addDuration(cur, Duration{Months: float64(months)}).After(a) {
		months--
	}
	cur = addDuration(cur, Duration{Months: float64(months)})
	days := int(civilDay(a) - civilDay(cur))
	for days > 0 && cur.AddDate(0, 0, days).After(a) {
		days--
	}
	cur = cur.AddDate(0, 0, days)
	rest := a.Sub(cur)
	d.Years, d.Months, d.Days = float64(years), float64(months), float64(days)
	d.Hours = float64(rest / time.Hour)
	rest %= time.Hour
	d.Minutes = float64(rest / time.Minute)
	rest %= time.Minute
	d.Seconds = float64(rest / time.Second)
	rest %= time.Second
	d.Millis = float64(rest / time.Millisecond)
	return d
}

// civilDay numbers the calendar day of t (in its own zone).
func civilDay(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// human renders a duration like Dataview ("7 days", "1 hour, 30
// minutes"): clock units carried up to weeks, zero units left out.
func (d Duration) human() string {
	n := d
	carry := func(small *float64, big *float64, ratio float64) {
		if *small == math.Trunc(*small) && math.Abs(*small) >= ratio {
			whole := math.Trunc(*small / ratio)
			*big += whole
			*small -= whole * ratio
		}
	}
	carry(&n.Millis, &n.Seconds, 1000)
	carry(&n.Seconds, &n.Minutes, 60)
	carry(&n.Minutes, &n.Hours, 60)
	carry(&n.Hours, &n.Days, 24)
	carry(&n.Days, &n.Weeks, 7)
	names := [8]string{"year", "month", "week", "day", "hour", "minute", "second", "millisecond"}
	var out []string
	for i, p := range n.parts() {
		if *p == 0 {
			continue
		}
		s := formatNumber(*p) + " " + names[i]
		if *p != 1 {
			s += "s"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "0 seconds"
	}
	return strings.Join(out, ", ")
}
