package edit

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"
)

// MaxValueBytes bounds one frontmatter value, as JSON.
const MaxValueBytes = 8192

// FrontmatterEdit is the outcome of SetFrontmatter.
type FrontmatterEdit struct {
	// Text is the whole new file (equal to the input when nothing changed).
	Text []byte
	// Changed lists the keys added, given a new value or deleted, sorted.
	Changed []string
	// Before and After are the decoded frontmatter (empty maps when none).
	Before, After map[string]any
	// Diff previews the changed frontmatter lines (unified style).
	Diff string
}

// entry is one top-level key of a YAML block: lines [start, end).
type entry struct {
	key        string
	start, end int
}

// fmBlock is a note split around its frontmatter.
type fmBlock struct {
	bom   string
	lines []string // every line of the text after the BOM, with terminators
	eol   string
	// found: lines[0] opens and lines[close] closes the block.
	found bool
	close int
}

// splitNote finds the frontmatter the way the vault parser does: "---" on
// the first line, closed by the next "---" line. A block that is never
// closed is an error (Obsidian shows it as text; editing would change its
// meaning).
func splitNote(src []byte) (fmBlock, error) {
	text := string(src)
	b := fmBlock{}
	if strings.HasPrefix(text, bom) {
		b.bom, text = bom, text[len(bom):]
	}
	b.lines, b.eol = splitLines(text), lineEnding(text)
	if len(b.lines) == 0 || strings.TrimRight(stripEOL(b.lines[0]), " \t") != "---" {
		return b, nil
	}
	for i := 1; i < len(b.lines); i++ {
		if strings.TrimSpace(b.lines[i]) == "---" {
			b.found, b.close = true, i
			return b, nil
		}
	}
	return b, errors.New("the note starts with --- but the frontmatter is never closed; not edited")
}

// yamlLines is the YAML between the delimiters.
func (b fmBlock) yamlLines() []string {
	if !b.found {
		return nil
	}
	return b.lines[1:b.close]
}

// SetFrontmatter sets top-level frontmatter keys of a note (a nil value
// deletes the key) by editing the YAML text surgically: the lines of a
// changed key are replaced in place, a deleted key's lines are removed,
// new keys are appended before the closing "---" in sorted key order (JSON
// objects have no order), and a block is created when the note has none.
// Every other byte — other keys, comments, the body, CRLF line endings, a
// BOM — is kept. A key whose value is already equal is left untouched, so
// an unchanged note is not rewritten. Malformed YAML, an unclosed block,
// or a layout the line editor cannot map to keys is an error and nothing
// is changed; the result is re-parsed and checked before it is returned.
func SetFrontmatter(name string, src []byte, set map[string]any) (*FrontmatterEdit, error) {
	b, err := splitNote(src)
	if err != nil {
		return nil, err
	}
	before, entries, err := parseBlock(b.yamlLines())
	if err != nil {
		return nil, err
	}
	values, err := normalizeSet(set)
	if err != nil {
		return nil, err
	}
	want := maps.Clone(before)
	replace := map[string][]string{} // key → new lines (nil: delete)
	var changed []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v := values[k]
		old, exists := before[k]
		switch {
		case v == nil && !exists:
			continue
		case v == nil:
			delete(want, k)
			replace[k] = nil
		case exists && jsonEqual(old, v):
			continue
		default:
			lines, err := renderKey(k, v, b.eol)
			if err != nil {
				return nil, err
			}
			want[k] = v
			replace[k] = lines
		}
		changed = append(changed, k)
	}
	out := &FrontmatterEdit{Text: src, Changed: nonNilStrings(changed), Before: before, After: before}
	if len(changed) == 0 {
		return out, nil
	}
	newLines := rebuild(b, entries, replace, changed)
	after, _, err := parseBlock(fmBlock{lines: newLines, found: true, close: closingIndex(newLines)}.yamlLines())
	if err != nil {
		return nil, fmt.Errorf("the edited frontmatter does not parse (%w); not changed", err)
	}
	if !jsonEqual(after, want) {
		return nil, errors.New("the edited frontmatter did not read back as intended; not changed")
	}
	oldEnd := 0
	if b.found {
		oldEnd = b.close + 1
	}
	out.Text = []byte(b.bom + strings.Join(newLines, ""))
	out.After = after
	out.Diff = Diff(name, b.lines[:oldEnd], newLines[:closingIndex(newLines)+1], 1)
	return out, nil
}

// closingIndex finds the closing delimiter of a block that opens on line 0.
func closingIndex(lines []string) int {
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			return i
		}
	}
	return len(lines) - 1
}

// rebuild returns the note's lines with the replacements applied; new keys
// go before the closing delimiter (a new block is created if needed).
func rebuild(b fmBlock, entries []entry, replace map[string][]string, changed []string) []string {
	at := map[int]entry{}
	for _, e := range entries {
		at[e.start] = e
	}
	var yamlOut []string
	src := b.yamlLines()
	for i := 0; i < len(src); i++ {
		e, ok := at[i]
		if !ok {
			yamlOut = append(yamlOut, src[i])
			continue
		}
		lines, touched := replace[e.key]
		if !touched {
			yamlOut = append(yamlOut, src[i:e.end]...)
		} else {
			yamlOut = append(yamlOut, lines...)
			delete(replace, e.key)
		}
		i = e.end - 1
	}
	if n := len(yamlOut); n > 0 && !strings.HasSuffix(yamlOut[n-1], "\n") {
		yamlOut[n-1] += b.eol // cannot happen inside a closed block; kept for safety
	}
	for _, k := range changed {
		if lines, ok := replace[k]; ok && lines != nil {
			yamlOut = append(yamlOut, lines...) // a new key
		}
	}
	if !b.found {
		out := append([]string{"---" + b.eol}, yamlOut...)
		out = append(out, "---"+b.eol)
		return append(out, b.lines...)
	}
	out := append([]string{b.lines[0]}, yamlOut...)
	return append(out, b.lines[b.close:]...)
}

// parseBlock decodes the YAML lines and maps each top-level key to its
// lines. The keys found by the line scanner must be exactly the decoded
// keys, or the block is refused as too unusual to edit line by line.
func parseBlock(lines []string) (map[string]any, []entry, error) {
	text := strings.Join(lines, "")
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		return nil, nil, fmt.Errorf("malformed frontmatter YAML (%s); not changed", firstLine(err.Error()))
	}
	decoded, _ := plain(raw).(map[string]any)
	if decoded == nil {
		decoded = map[string]any{}
	}
	entries, err := scanEntries(lines)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(entries))
	for _, e := range entries {
		keys = append(keys, e.key)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, slices.Sorted(maps.Keys(decoded))) {
		return nil, nil, errors.New("the frontmatter uses YAML features this editor does not change line by line (anchors, merge keys, complex keys, flow mappings); not changed")
	}
	return decoded, entries, nil
}

// scanEntries finds top-level keys: a key line starts at column 0; its
// value continues on indented lines, "- " sequence lines and blank lines
// between them. A comment at column 0 ends the current key.
func scanEntries(lines []string) ([]entry, error) {
	var out []entry
	cur := -1
	for i, l := range lines {
		l = stripEOL(l)
		switch {
		case strings.TrimSpace(l) == "":
		case l[0] == ' ' || l[0] == '\t' || l == "-" || strings.HasPrefix(l, "- "):
			if cur < 0 {
				if strings.HasPrefix(strings.TrimSpace(l), "#") {
					continue // an indented comment before any key
				}
				return nil, fmt.Errorf("frontmatter line %d belongs to no key; not changed", i+2)
			}
			out[cur].end = i + 1
		case l[0] == '#':
			cur = -1
		default:
			key, ok := lineKey(l)
			if !ok {
				return nil, fmt.Errorf("frontmatter line %d is not a simple \"key: value\" line; not changed", i+2)
			}
			out = append(out, entry{key: key, start: i, end: i + 1})
			cur = len(out) - 1
		}
	}
	return out, nil
}

// lineKey reads the key of a top-level "key: value" line: plain, "double"
// or 'single' quoted.
func lineKey(l string) (string, bool) {
	var key, rest string
	switch l[0] {
	case '"', '\'':
		end := quoteEnd(l)
		if end < 0 {
			return "", false
		}
		var s string
		if err := yaml.Unmarshal([]byte(l[:end+1]), &s); err != nil {
			return "", false
		}
		key, rest = s, strings.TrimLeft(l[end+1:], " \t")
		if !strings.HasPrefix(rest, ":") {
			return "", false
		}
		rest = rest[1:]
	case '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '?', ',', ']', '}':
		return "", false
	default:
		i := valueColon(l)
		if i < 0 {
			return "", false
		}
		key, rest = strings.TrimRight(l[:i], " \t"), l[i+1:]
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return key, true
}

// quoteEnd is the index of the quote closing the one at l[0], or -1.
func quoteEnd(l string) int {
	q := l[0]
	for i := 1; i < len(l); i++ {
		switch {
		case q == '"' && l[i] == '\\':
			i++
		case l[i] == q && q == '\'' && i+1 < len(l) && l[i+1] == '\'':
			i++
		case l[i] == q:
			return i
		}
	}
	return -1
}

// valueColon is the index of the ':' that ends a plain key (followed by a
// space, a tab or the end of the line), or -1.
func valueColon(l string) int {
	for i := 0; i < len(l); i++ {
		if l[i] == ':' && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t') {
			return i
		}
		if l[i] == '#' && i > 0 && (l[i-1] == ' ' || l[i-1] == '\t') {
			return -1 // a comment before any colon
		}
	}
	return -1
}

// renderKey serialises one key and value as YAML lines with the note's
// line ending.
func renderKey(k string, v any, eol string) ([]string, error) {
	out, err := yaml.MarshalWithOptions(map[string]any{k: v}, yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("frontmatter %q: %w", k, err)
	}
	return splitLines(withEOL(string(out), eol)), nil
}

// NewFrontmatter serialises a whole frontmatter block ("---" lines
// included) with keys in sorted order; nil values are written as empty
// (null) properties. It returns "" for an empty map.
func NewFrontmatter(fm map[string]any, eol string) (string, error) {
	if len(fm) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("---" + eol)
	for _, k := range slices.Sorted(maps.Keys(fm)) {
		if err := checkKey(k); err != nil {
			return "", err
		}
		v, err := normalizeValue(k, fm[k])
		if err != nil {
			return "", err
		}
		lines, err := renderKey(k, v, eol)
		if err != nil {
			return "", err
		}
		b.WriteString(strings.Join(lines, ""))
	}
	b.WriteString("---" + eol)
	return b.String(), nil
}

// HasFrontmatter reports whether text opens with a frontmatter block.
func HasFrontmatter(text string) bool {
	b, err := splitNote([]byte(text))
	return err == nil && b.found
}

// normalizeSet validates keys and values of a set request.
func normalizeSet(set map[string]any) (map[string]any, error) {
	if len(set) == 0 {
		return nil, errors.New("set is empty: give at least one key")
	}
	out := make(map[string]any, len(set))
	for k, v := range set {
		if err := checkKey(k); err != nil {
			return nil, err
		}
		nv, err := normalizeValue(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

func checkKey(k string) error {
	if strings.TrimSpace(k) == "" || strings.TrimSpace(k) != k || strings.ContainsFunc(k, unicode.IsControl) {
		return fmt.Errorf("frontmatter key %q: keys must be non-empty, without surrounding spaces or control characters", k)
	}
	return nil
}

// normalizeValue checks a value's size and turns whole JSON numbers into
// integers (so 5 is written "5", not "5.0").
func normalizeValue(k string, v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("frontmatter %q: %w", k, err)
	}
	if len(raw) > MaxValueBytes {
		return nil, fmt.Errorf("frontmatter %q: value is %d bytes as JSON, over the %d limit", k, len(raw), MaxValueBytes)
	}
	return integers(v), nil
}

func integers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = integers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = integers(e)
		}
		return out
	}
	return v
}

// plain turns a decoded YAML tree into JSON-friendly values.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plain(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
	}
	return v
}

// jsonEqual compares two values by their JSON encoding (so 5, 5.0 and
// int64(5) are equal and map order does not matter).
func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
