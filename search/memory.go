package search

import (
	"path"
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Result types of a hit (obsidian_search's types and result_type).
const (
	ResultNote   = "note"
	ResultMemory = "memory"
)

// MemoryType is the frontmatter type value that makes a note a memory.
const MemoryType = "memory"

// MemoryOf classifies a note: a memory is a markdown note whose
// frontmatter says `type: memory` (case-insensitive), wherever it lives —
// obsidian_remember writes them, and a user may write or move one by hand.
// Its key is the frontmatter key, else the file name without .md.
// Everything else is a note, with no key.
func MemoryOf(n *vault.Note) (resultType, key string) {
	if n.Kind != vault.KindMarkdown {
		return ResultNote, ""
	}
	t, ok := lookupKey(n.Frontmatter, "type")
	if s, isStr := t.(string); !ok || !isStr || !strings.EqualFold(strings.TrimSpace(s), MemoryType) {
		return ResultNote, ""
	}
	if k, ok := lookupKey(n.Frontmatter, "key"); ok {
		if c, ok := CanonicalValue(k); ok && c != "" {
			if s, isStr := k.(string); isStr {
				return ResultMemory, strings.TrimSpace(s)
			}
			return ResultMemory, c
		}
	}
	return ResultMemory, strings.TrimSuffix(path.Base(n.Path), path.Ext(n.Path))
}

// normalizeTypes validates Types: each "note" or "memory"; none (or
// both) means every note.
func (r *Request) normalizeTypes() error {
	for _, t := range r.Types {
		if t != ResultNote && t != ResultMemory {
			return invalid("unknown type %s in types (known: %q, %q)", quoted(t), ResultNote, ResultMemory)
		}
	}
	if slices.Contains(r.Types, ResultNote) && slices.Contains(r.Types, ResultMemory) {
		r.Types = nil
	}
	return nil
}

// allowTypes narrows allow to the result types asked for (allow itself
// when every type is wanted).
func (e *Engine) allowTypes(allow func(int) bool, types []string) func(int) bool {
	if len(types) == 0 {
		return allow
	}
	want := types[0]
	ok := make([]bool, len(e.snap.Notes))
	for i, n := range e.snap.Notes {
		t, _ := MemoryOf(n)
		ok[i] = t == want && (allow == nil || allow(i))
	}
	return func(i int) bool { return ok[i] }
}
