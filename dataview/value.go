package dataview

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Value is a Dataview value: nil (null), float64, string, bool, time.Time
// (date), Duration, Link, []Value (list) or Object.
type Value = any

// Object is a Dataview object (frontmatter map, the file.* fields, a page).
type Object interface {
	// Get returns the value under exactly key.
	Get(key string) (Value, bool)
	// Keys lists the keys, sorted.
	Keys() []string
}

// Link is a link to a note, heading or block. Path is the resolved
// vault-relative path when the link resolves, else the text as written.
type Link struct {
	Path    string
	Subpath string // heading, or block id when Block
	Block   bool
	Display string
	Embed   bool
}

func (l Link) kind() string {
	switch {
	case l.Block:
		return "block"
	case l.Subpath != "":
		return "header"
	}
	return "file"
}

// markdown renders the link as Obsidian writes it.
func (l Link) markdown() string {
	var b strings.Builder
	if l.Embed {
		b.WriteByte('!')
	}
	b.WriteString("[[")
	b.WriteString(strings.ReplaceAll(l.Path, "|", `\|`))
	if l.Subpath != "" {
		b.WriteByte('#')
		if l.Block {
			b.WriteByte('^')
		}
		b.WriteString(l.Subpath)
	}
	if l.Display != "" {
		b.WriteByte('|')
		b.WriteString(l.Display)
	}
	b.WriteString("]]")
	return b.String()
}

// parseInnerLink splits the inside of [[…]] into path, subpath and display.
func parseInnerLink(inner string) Link {
	var l Link
	path := inner
	for i := 0; i < len(inner); i++ {
		if inner[i] == '|' && (i == 0 || inner[i-1] != '\\') {
			path, l.Display = inner[:i], inner[i+1:]
			break
		}
	}
	path = strings.ReplaceAll(path, `\|`, "|")
	if before, after, ok := strings.Cut(path, "#^"); ok {
		path, l.Subpath, l.Block = before, after, true
	} else if before, after, ok := strings.Cut(path, "#"); ok {
		path, l.Subpath = before, after
	}
	l.Path = path
	return l
}

// typeOf names a value's type as Dataview does; cross-type comparisons
// order by these names.
func typeOf(v Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "boolean"
	case time.Time:
		return "date"
	case Duration:
		return "duration"
	case Link:
		return "link"
	case []Value:
		return "array"
	default:
		return "object"
	}
}

// truthy is Dataview's truthiness: non-zero, non-empty, non-null.
func truthy(v Value) bool {
	switch x := v.(type) {
	case nil:
		return false
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case bool:
		return x
	case time.Time:
		return x.UnixMilli() != 0
	case Duration:
		return x.millis() != 0
	case Link:
		return x.Path != ""
	case []Value:
		return len(x) > 0
	case Object:
		return len(x.Keys()) > 0
	}
	return true
}

// comparer orders values like Dataview's compareValue: null first, then by
// type name across types, then within a type (text by locale collation).
// A comparer is not safe for concurrent use (the collator keeps state).
type comparer struct {
	coll *collate.Collator
	// rank is the collation rank of printable ASCII characters (upper and
	// lower case share one); 0 marks characters the fast path leaves to
	// the collator.
	rank [128]uint8
}

// asciiCollation is printable ASCII in the Unicode root collation order
// (what JavaScript's localeCompare uses); TestASCIICollation checks it
// against the collator.
const asciiCollation = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"

func newComparer() comparer {
	c := comparer{coll: collate.New(language.Und)}
	r := uint8(0)
	for i := 0; i < len(asciiCollation); i++ {
		ch := asciiCollation[i]
		if !(ch >= 'A' && ch <= 'Z') { // a capital shares its small letter's rank
			r++
		}
		c.rank[ch] = r
	}
	return c
}

func (c *comparer) compare(a, b Value) int {
	switch x := a.(type) { // the common cases, without naming types
	case float64:
		if y, ok := b.(float64); ok {
			return cmpFloat(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return c.compareText(x, y)
		}
	}
	ta, tb := typeOf(a), typeOf(b)
	if ta != tb {
		if ta == "null" {
			return -1
		}
		if tb == "null" {
			return 1
		}
		return strings.Compare(ta, tb)
	}
	switch x := a.(type) {
	case nil:
		return 0
	case float64:
		y := b.(float64)
		if x < y {
			return -1
		}
		if x == y {
			return 0
		}
		return 1
	case string:
		return c.compareText(x, b.(string))
	case bool:
		return boolInt(x) - boolInt(b.(bool))
	case time.Time:
		return x.Compare(b.(time.Time))
	case Duration:
		xm, ym := x.millis(), b.(Duration).millis()
		return cmpFloat(xm, ym)
	case Link:
		return c.compareLinks(x, b.(Link))
	case []Value:
		return c.compareLists(x, b.([]Value))
	case Object:
		return c.compareObjects(x, b.(Object))
	}
	return 0
}

func (c *comparer) compareText(a, b string) int {
	if a == b {
		return 0
	}
	if d, ok := c.compareASCII(a, b); ok {
		return d
	}
	return c.coll.CompareString(a, b)
}

// compareASCII compares printable-ASCII texts as the root collation does,
// without the collator: letters first ignoring case, then the shorter
// text, then lower case before upper case at the first difference.
func (c *comparer) compareASCII(a, b string) (int, bool) {
	tie := 0
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) {
			if !c.printable(a[i:]) || !c.printable(b[i:]) {
				return 0, false
			}
			return cmpInt(len(a), len(b)), true
		}
		x, y := a[i], b[i]
		if x >= 128 || y >= 128 || c.rank[x] == 0 || c.rank[y] == 0 {
			return 0, false
		}
		if d := cmpInt(int(c.rank[x]), int(c.rank[y])); d != 0 {
			return d, c.printable(a[i:]) && c.printable(b[i:])
		}
		if tie == 0 && x != y {
			tie = cmpInt(int(y), int(x)) // same letter: 'a' (0x61) before 'A' (0x41)
		}
	}
	return tie, true
}

// textKeys fills the sort bytes of the text values at key position j:
// the collator-free ASCII form for printable ASCII, collation keys for
// other texts. Two keys of the same kind compare like compareText.
func (c *comparer) textKeys(items []sortItem, j int) {
	var buf collate.Buffer
	for k := range items {
		s, ok := items[k].keys[j].(string)
		if !ok {
			continue
		}
		if c.printable(s) {
			items[k].text[j] = c.asciiKey(s)
			items[k].ascii[j] = true
		} else {
			items[k].text[j] = slices.Clone(c.coll.KeyFromString(&buf, s))
			buf.Reset()
		}
	}
}

// asciiKey encodes printable ASCII text so that bytes.Compare orders keys
// as compareASCII orders texts: the ranks, a 0, then 1 per capital letter.
func (c *comparer) asciiKey(s string) []byte {
	key := make([]byte, 0, 2*len(s)+1)
	for i := 0; i < len(s); i++ {
		key = append(key, c.rank[s[i]])
	}
	key = append(key, 0)
	for i := 0; i < len(s); i++ {
		key = append(key, boolByte(s[i] >= 'A' && s[i] <= 'Z'))
	}
	return key
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (c *comparer) printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 128 || c.rank[s[i]] == 0 {
			return false
		}
	}
	return true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *comparer) compareLinks(a, b Link) int {
	if d := c.compareText(a.Path, b.Path); d != 0 {
		return d
	}
	if d := strings.Compare(a.kind(), b.kind()); d != 0 {
		return d
	}
	return c.compareText(a.Subpath, b.Subpath)
}

func (c *comparer) compareLists(a, b []Value) int {
	for i := range min(len(a), len(b)) {
		if d := c.compare(a[i], b[i]); d != 0 {
			return d
		}
	}
	return len(a) - len(b)
}

func (c *comparer) compareObjects(a, b Object) int {
	ka, kb := a.Keys(), b.Keys()
	if d := slices.Compare(ka, kb); d != 0 {
		return d
	}
	for _, k := range ka {
		va, _ := a.Get(k)
		vb, _ := b.Get(k)
		if d := c.compare(va, vb); d != 0 {
			return d
		}
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a == b:
		return 0
	}
	return 1
}

// Dataview's default display settings.
const (
	nullText       = `\-`
	dateFormat     = "January 02, 2006"
	dateTimeFormat = "3:04 PM - January 02, 2006"
	jsonDateFormat = "2006-01-02"
)

// toText renders a value the way Dataview turns values into text (string
// concatenation, join).
func toText(v Value, nested bool) string {
	switch x := v.(type) {
	case nil:
		return nullText
	case float64:
		return formatNumber(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		if isMidnight(x) {
			return x.Format(dateFormat)
		}
		return x.Format(dateTimeFormat)
	case Duration:
		return x.human()
	case Link:
		return x.markdown()
	case []Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = toText(e, true)
		}
		if nested {
			return "[" + strings.Join(parts, ", ") + "]"
		}
		return strings.Join(parts, ", ")
	case Object:
		keys := x.Keys()
		parts := make([]string, len(keys))
		for i, k := range keys {
			e, _ := x.Get(k)
			parts[i] = k + ": " + toText(e, true)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return ""
}

func isMidnight(t time.Time) bool {
	return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// formatNumber writes a number like JavaScript does.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + exp
}

// jsLength is a string's length in UTF-16 code units, as JavaScript counts.
func jsLength(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// JSON renders a value for a JSON answer: dates as YYYY-MM-DD (midnight)
// or RFC 3339, durations as Dataview shows them ("7 days"), links as
// [[path#sub|display]], non-finite numbers as null.
func JSON(v Value) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case time.Time:
		if isMidnight(x) {
			return x.Format(jsonDateFormat)
		}
		return x.Format(time.RFC3339)
	case Duration:
		return x.human()
	case Link:
		return x.markdown()
	case []Value:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSON(e)
		}
		return out
	case Object:
		out := make(map[string]any)
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out[k] = JSON(e)
		}
		return out
	}
	return v
}
