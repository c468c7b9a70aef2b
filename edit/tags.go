package edit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ErrUnsafeTags reports a tags property this editor cannot rewrite
// without risking its meaning; the note is left as it is.
var ErrUnsafeTags = errors.New("the tags property cannot be rewritten safely")

// CleanTag normalises a tag as a user writes it: trimmed, without the
// leading '#' or trailing '/', NFC. It is an error for one Obsidian would
// not read as a tag (spaces, no letter, characters tags cannot hold).
func CleanTag(t string) (string, error) {
	c := norm.NFC.String(strings.TrimRight(strings.TrimLeft(strings.TrimSpace(t), "#"), "/"))
	spans := vault.InlineTagSpans([]byte("#" + c))
	if c == "" || len(spans) != 1 || spans[0].Tag != c {
		return "", fmt.Errorf("%q is not a tag Obsidian reads (letters, digits, _, - and / for nesting, at least one non-digit, no spaces)", t)
	}
	return c, nil
}

// tagList is a frontmatter tags property as written.
type tagList struct {
	key   string
	style int // tagsFlow, tagsBlock, tagsScalar, tagsAbsent
	items []string
	// For tagsScalar: the separator and whether the value was quoted.
	sep    string
	quoted bool
	// indent and dash of block items ("  - ").
	prefix string
}

const (
	tagsAbsent = iota
	tagsFlow   // tags: [a, b]
	tagsBlock  // tags:\n  - a
	tagsScalar // tags: a, b   or   tags: a b
)

// SetTags adds and removes frontmatter tags of a note, keeping the
// property's style: a flow list stays a flow list, a block list a block
// list, a "a, b" or "a b" string a string. A note without the property
// gets a block list. Tags compare case-insensitively and with nesting
// exact (removing "a" leaves "a/b"). The result is checked by parsing it
// again; anything unexpected is ErrUnsafeTags and src is not changed.
func SetTags(src []byte, add, remove []string) ([]byte, error) {
	b, err := splitNote(src)
	if err != nil {
		return nil, err
	}
	tl, entries, err := readTags(b)
	if err != nil {
		return nil, err
	}
	items := slices.DeleteFunc(slices.Clone(tl.items), func(it string) bool {
		return slices.ContainsFunc(remove, func(r string) bool { return strings.EqualFold(tagOf(it), r) })
	})
	for _, a := range add {
		if !slices.ContainsFunc(items, func(it string) bool { return strings.EqualFold(tagOf(it), a) }) {
			items = append(items, a)
		}
	}
	return writeTags(src, b, tl, entries, items)
}

// RenameTags rewrites tag from (and every tag nested under it) to to,
// inline and in the frontmatter, keeping the rest of each tag ("#from/x"
// becomes "#to/x") and the property's style. It returns the new text and
// the number of tags rewritten.
func RenameTags(src []byte, from, to string) ([]byte, int, error) {
	renamed := func(tag string) (string, bool) {
		switch {
		case strings.EqualFold(tag, from):
			return to, true
		case len(tag) > len(from) && tag[len(from)] == '/' && strings.EqualFold(tag[:len(from)], from):
			return to + tag[len(from):], true
		}
		return "", false
	}
	count := 0
	b, err := splitNote(src)
	if err != nil {
		return nil, 0, err
	}
	tl, entries, err := readTags(b)
	if err != nil {
		return nil, 0, err
	}
	out := src
	if tl.style != tagsAbsent {
		items := slices.Clone(tl.items)
		changed := false
		for i, it := range items {
			if nt, ok := renamed(tagOf(it)); ok {
				items[i], changed = nt, true
				count++
			}
		}
		if changed {
			if out, err = writeTags(src, b, tl, entries, dedupeFold(items)); err != nil {
				return nil, 0, err
			}
		}
	}
	lines := strings.SplitAfter(string(out), "\n")
	spans := vault.InlineTagSpans(out)
	for i := len(spans) - 1; i >= 0; i-- { // right to left: offsets stay valid
		sp := spans[i]
		nt, ok := renamed(sp.Tag)
		if !ok {
			continue
		}
		l := lines[sp.Line-1]
		lines[sp.Line-1] = l[:sp.Start] + "#" + nt + l[sp.End:]
		count++
	}
	return []byte(strings.Join(lines, "")), count, nil
}

// readTags finds the tags property (the key "tags" or "tag", any case,
// as the vault reads it) and how it is written.
func readTags(b fmBlock) (tagList, []entry, error) {
	if !b.found {
		return tagList{style: tagsAbsent, key: "tags"}, nil, nil
	}
	yl := b.yamlLines()
	_, entries, err := parseBlock(yl)
	if err != nil {
		return tagList{}, nil, err
	}
	for _, e := range entries {
		if !strings.EqualFold(e.key, "tags") && !strings.EqualFold(e.key, "tag") {
			continue
		}
		tl := tagList{key: e.key}
		first := stripEOL(yl[e.start])
		value := strings.TrimSpace(first[strings.Index(first, ":")+1:])
		switch {
		case value == "" && e.end-e.start > 1:
			tl.style = tagsBlock
			for _, l := range yl[e.start+1 : e.end] {
				t := strings.TrimSpace(stripEOL(l))
				if t == "" {
					continue
				}
				if !strings.HasPrefix(t, "- ") && t != "-" {
					return tagList{}, nil, fmt.Errorf("%w: line %q is not a list item", ErrUnsafeTags, t)
				}
				if tl.prefix == "" {
					l := stripEOL(l)
					tl.prefix = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + "- "
				}
				it, err := unquote(strings.TrimSpace(strings.TrimPrefix(t, "-")))
				if err != nil {
					return tagList{}, nil, err
				}
				tl.items = append(tl.items, it)
			}
		case e.end-e.start > 1:
			return tagList{}, nil, fmt.Errorf("%w: it spans several lines", ErrUnsafeTags)
		case strings.HasPrefix(value, "["):
			var items []any
			if err := yaml.Unmarshal([]byte(value), &items); err != nil {
				return tagList{}, nil, fmt.Errorf("%w: %s", ErrUnsafeTags, firstLine(err.Error()))
			}
			tl.style = tagsFlow
			for _, it := range items {
				s, ok := it.(string)
				if !ok {
					s = fmt.Sprint(it)
				}
				tl.items = append(tl.items, s)
			}
		case value == "" || value == "null" || value == "~":
			tl.style = tagsBlock
			tl.prefix = "  - "
		default:
			s, err := unquote(value)
			if err != nil {
				return tagList{}, nil, err
			}
			tl.style, tl.quoted = tagsScalar, s != value
			tl.sep = " "
			if strings.Contains(s, ",") {
				tl.sep = ", "
			}
			for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				tl.items = append(tl.items, f)
			}
		}
		return tl, entries, nil
	}
	return tagList{style: tagsAbsent, key: "tags"}, entries, nil
}

// writeTags writes items back in tl's style and checks the vault reads
// exactly those tags from the result.
func writeTags(src []byte, b fmBlock, tl tagList, entries []entry, items []string) ([]byte, error) {
	var out []byte
	if tl.style == tagsAbsent {
		if len(items) == 0 {
			return src, nil
		}
		list := make([]any, len(items))
		for i, it := range items {
			list[i] = it
		}
		fe, err := SetFrontmatter("note", src, map[string]any{"tags": list})
		if err != nil {
			return nil, err
		}
		out = fe.Text
	} else {
		var lines []string
		eol := b.eol
		switch tl.style {
		case tagsFlow:
			q := make([]string, len(items))
			for i, it := range items {
				q[i] = yamlScalar(it)
			}
			lines = []string{tl.key + ": [" + strings.Join(q, ", ") + "]" + eol}
		case tagsBlock:
			lines = []string{tl.key + ":" + eol}
			for _, it := range items {
				lines = append(lines, tl.prefix+yamlScalar(it)+eol)
			}
		case tagsScalar:
			v := strings.Join(items, tl.sep)
			if tl.quoted || !roundTrips(v) {
				v = fmt.Sprintf("%q", v)
			}
			lines = []string{tl.key + ": " + v + eol}
		}
		var e entry
		for _, x := range entries {
			if x.key == tl.key {
				e = x
			}
		}
		all := slices.Clone(b.lines)
		// yamlLines start after the opening "---" line.
		all = slices.Replace(all, e.start+1, e.end+1, lines...)
		out = []byte(b.bom + strings.Join(all, ""))
	}
	n, _ := vault.Parse("note.md", out)
	if !sameFold(n.FrontmatterTags, dedupeFold(items)) {
		return nil, fmt.Errorf("%w: the result would read as tags %v, not %v", ErrUnsafeTags, n.FrontmatterTags, items)
	}
	return out, nil
}

// tagOf is an item as a tag: without a leading '#'.
func tagOf(item string) string { return strings.TrimLeft(strings.TrimSpace(item), "#") }

// yamlScalar writes a list item plain when YAML reads it back as the
// same string (and it holds nothing a flow list would split on), else
// double-quoted.
func yamlScalar(s string) string {
	if roundTrips(s) && !strings.ContainsAny(s, "#,[]{}") {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// roundTrips reports whether "key: s" reads back as the string s.
func roundTrips(s string) bool {
	var m map[string]any
	if yaml.Unmarshal([]byte("v: "+s), &m) != nil {
		return false
	}
	back, ok := m["v"].(string)
	return ok && back == s
}

func unquote(s string) (string, error) {
	if s == "" || (s[0] != '"' && s[0] != '\'') {
		return s, nil
	}
	var v string
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return "", fmt.Errorf("%w: %s", ErrUnsafeTags, firstLine(err.Error()))
	}
	return v, nil
}

func dedupeFold(items []string) []string {
	var out []string
	for _, it := range items {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(tagOf(o), tagOf(it)) }) {
			out = append(out, it)
		}
	}
	return out
}

func sameFold(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(tagOf(a[i]), tagOf(b[i])) {
			return false
		}
	}
	return true
}
