package vault

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// splitFrontmatter separates the YAML frontmatter from the body of text
// (LF line endings). It returns the decoded map (nil if absent), the body,
// the 1-based line the body starts on, and a warning when the YAML is
// malformed: then the block is dropped and the note is kept as body only.
// Only Obsidian's format counts: a block fenced by "---" lines, decoded
// as YAML 1.2 ("yes", "on" and "no" stay strings, dates stay strings).
// The body is a substring of text, not a copy.
func splitFrontmatter(text string) (fm map[string]any, body string, bodyLine int, warn string) {
	// Obsidian only takes frontmatter that opens on the very first line.
	first, _, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return nil, text, 1, ""
	}
	block, end := fence(text)
	if end < 0 {
		return nil, text, 1, "" // no closing "---": Obsidian shows it as text
	}
	line := 1 + strings.Count(text[:end], "\n")
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(block), &raw); err != nil {
		return nil, text[end:], line,
			fmt.Sprintf("malformed frontmatter YAML (%s); note kept without frontmatter", firstLine(err.Error()))
	}
	budget := maxFrontmatterNodes
	norm, ok := normalizeYAML(raw, &budget).(map[string]any)
	if !ok || budget < 0 {
		// YAML aliases can expand a few hundred bytes into gigabytes.
		return nil, text[end:], line,
			fmt.Sprintf("frontmatter expands to more than %d values (YAML aliases?); note kept without frontmatter", maxFrontmatterNodes)
	}
	fm = norm
	if len(fm) == 0 {
		fm = nil
	}
	return fm, text[end:], line, ""
}

// fence finds the block that the first line of text opens: block is the
// text between that line and the first later line that is "---" once
// trimmed of white space, end the offset just after the closing line (the
// body's start). end is -1 when no line closes the block, and also when
// the text is its opening line alone, as adrg/frontmatter (which this
// replaces, to stop copying every note's text twice) decided.
func fence(text string) (block string, end int) {
	off := strings.IndexByte(text, '\n') + 1
	open := off
	for off > 0 && off < len(text) {
		line, _, found := strings.Cut(text[off:], "\n")
		next := off + len(line) + 1
		if strings.TrimSpace(line) == "---" {
			return text[open:off], min(next, len(text))
		}
		if !found {
			break
		}
		off = next
	}
	return "", -1
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// maxFrontmatterNodes bounds the values of one note's frontmatter.
const maxFrontmatterNodes = 100_000

// normalizeYAML copies a decoded YAML tree into JSON-friendly values:
// NFC strings, string keys, ints, and non-finite floats (.inf, .nan) as
// strings. budget counts the values left; it goes negative (and the copy
// stops) when the tree is bigger — shared YAML aliases are copied per use.
func normalizeYAML(v any, budget *int) any {
	if *budget--; *budget < 0 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[nfc(k)] = normalizeYAML(e, budget)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[nfc(fmt.Sprint(k))] = normalizeYAML(e, budget)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeYAML(e, budget)
		}
		return out
	case string:
		return nfc(x)
	case uint64:
		if x <= math.MaxInt {
			return int(x)
		}
	case int64:
		return int(x)
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x) // JSON has no Inf or NaN
		}
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return fmt.Sprint(x)
		}
	}
	return v
}

// stringList reads a frontmatter value that may be a list or a single
// string separated by any of seps (e.g. "a, b" or "a b").
func stringList(v any, seps string) []string {
	var out []string
	add := func(s string) {
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	switch x := v.(type) {
	case nil:
	case string:
		add(x)
	case []any:
		for _, e := range x {
			if e != nil {
				out = append(out, strings.TrimSpace(fmt.Sprint(e)))
			}
		}
	default:
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// fmValue returns the value of the first present key, matched exactly,
// then case-insensitively.
func fmValue(fm map[string]any, keys ...string) (any, bool) {
	for _, k := range keys {
		if v, ok := fm[k]; ok {
			return v, true
		}
	}
	names := make([]string, 0, len(fm))
	for k := range fm {
		names = append(names, k)
	}
	slices.Sort(names) // "Tags" and "TAGS" in one note: always the same one
	for _, want := range keys {
		for _, k := range names {
			if strings.EqualFold(k, want) {
				return fm[k], true
			}
		}
	}
	return nil, false
}
