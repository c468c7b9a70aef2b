package search

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// NormalizeFolder turns a user folder ("Projects/", "./Projects", "/a/b")
// into the vault-relative prefix searches use; "" means the whole vault. A
// folder that would leave the vault is an error wrapping ErrInvalid.
func NormalizeFolder(folder string) (string, error) {
	f := norm.NFC.String(strings.TrimSpace(strings.ReplaceAll(folder, `\`, "/")))
	if f == "" || f == "." || f == "/" {
		return "", nil
	}
	f = path.Clean("/" + f)[1:]
	if strings.HasPrefix(strings.TrimSpace(folder), "..") || strings.Contains(folder, "/../") {
		return "", invalid("folder %s must be a path inside the vault", quoted(folder))
	}
	return f, nil
}

// InFolder reports whether a vault-relative path lies under a folder
// returned by NormalizeFolder (case-insensitive; "" matches everything).
func InFolder(p, folder string) bool {
	if folder == "" {
		return true
	}
	return len(p) > len(folder) && p[len(folder)] == '/' && strings.EqualFold(p[:len(folder)], folder)
}

// FolderFilter turns a folder argument into a predicate on the ids of
// snap's notes (nil for the whole vault), validated by NormalizeFolder.
func FolderFilter(snap *vault.Snapshot, folder string) (func(int) bool, error) {
	if strings.TrimSpace(folder) == "" {
		return nil, nil
	}
	f, err := NormalizeFolder(folder)
	if err != nil || f == "" {
		return nil, err
	}
	return func(i int) bool { return InFolder(snap.Notes[i].Path, f) }, nil
}

// FrontmatterFilter is a validated filter_frontmatter, with the semantics
// of obsidian_search's: every key must match (AND); an array value lists
// alternatives (OR); a note whose value is a list matches by membership;
// strings compare case-insensitively after trim and NFC; numbers compare by
// value; a note without the key is excluded. An empty filter matches every
// note.
type FrontmatterFilter []fmCondition

type fmCondition struct {
	key    string
	values []string // canonical forms
}

// ParseFrontmatterFilter validates a filter_frontmatter argument: values
// are scalars (string, number, bool) or arrays of scalars. Errors wrap
// ErrInvalid and name the offending key.
func ParseFrontmatterFilter(raw map[string]any) (FrontmatterFilter, error) {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var f FrontmatterFilter
	for _, k := range keys {
		if strings.TrimSpace(k) == "" {
			return nil, invalid("filter_frontmatter: empty key")
		}
		var vals []string
		switch v := raw[k].(type) {
		case []any:
			if len(v) == 0 {
				return nil, invalid("filter_frontmatter[%s]: empty array matches nothing; give at least one value", quoted(k))
			}
			for _, e := range v {
				c, ok := CanonicalValue(e)
				if !ok {
					return nil, invalid("filter_frontmatter[%s]: array items must be strings, numbers or booleans, got %s", quoted(k), typeName(e))
				}
				vals = append(vals, c)
			}
		default:
			c, ok := CanonicalValue(v)
			if !ok {
				return nil, invalid("filter_frontmatter[%s]: value must be a string, number, boolean or array of those, got %s", quoted(k), typeName(v))
			}
			vals = []string{c}
		}
		f = append(f, fmCondition{key: k, values: vals})
	}
	return f, nil
}

// CanonicalValue is the form filter_frontmatter compares scalars in:
// strings trimmed, NFC and lower-cased; numbers in shortest decimal form
// (2024, 2024.0 and "2024" are equal); booleans as true/false. ok is false
// for anything else (maps, lists, null).
func CanonicalValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		s := strings.ToLower(norm.NFC.String(strings.TrimSpace(x)))
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return strconv.FormatFloat(f, 'g', -1, 64), true
		}
		return s, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	}
	return "", false
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// Empty reports whether the filter has no condition (matches every note).
func (f FrontmatterFilter) Empty() bool { return len(f) == 0 }

// Match reports whether a note passes every condition. A note missing a
// key fails; a note whose value is a list passes if any element matches.
func (f FrontmatterFilter) Match(n *vault.Note) bool {
	for _, c := range f {
		if _, v, ok := FrontmatterCompared(n, c.key); !ok || !c.matches(v, isTagKey(c.key)) {
			return false
		}
	}
	return true
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (c fmCondition) matches(v any, tagKey bool) bool {
	if list, ok := v.([]any); ok {
		return slices.ContainsFunc(list, func(e any) bool { return c.matches(e, tagKey) })
	}
	got, ok := CanonicalValue(v)
	if !ok {
		return false
	}
	return slices.ContainsFunc(c.values, func(want string) bool { return sameValue(got, want, tagKey) })
}

// sameValue compares canonical forms; a tag's leading '#' is optional.
func sameValue(got, want string, tagKey bool) bool {
	if tagKey {
		got, want = strings.TrimPrefix(got, "#"), strings.TrimPrefix(want, "#")
	}
	return got == want
}

func isTagKey(k string) bool {
	k = strings.ToLower(k)
	return k == "tags" || k == "tag"
}

// lookupKey finds a frontmatter key exactly, then case-insensitively.
func lookupKey(fm map[string]any, key string) (any, bool) {
	_, v, ok := lookupKeyName(fm, key)
	return v, ok
}

// lookupKeyName is lookupKey that also returns the key as the note
// spells it.
func lookupKeyName(fm map[string]any, key string) (string, any, bool) {
	if v, ok := fm[key]; ok {
		return key, v, true
	}
	names := make([]string, 0, len(fm))
	for k := range fm {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if strings.EqualFold(k, key) {
			return k, fm[k], true
		}
	}
	return "", nil, false
}
