package vault

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Moved returns a view of the snapshot in which the note at from lives at
// to (and a different note already at to, if any, is gone), for resolving
// links as they would resolve after a rename. Only the lookup tables are
// rebuilt: notes are shared, nothing is re-resolved, Notes is not
// re-sorted and stored Link.Resolved values still describe the original
// snapshot. The receiver is not modified.
func (s *Snapshot) Moved(from, to string) (*Snapshot, error) {
	i, ok := s.NoteID(from)
	if !ok || s.Notes[i].Kind != KindMarkdown {
		return nil, fmt.Errorf("no note at %q", from)
	}
	to = nfc(strings.TrimPrefix(to, "/"))
	m := *s
	m.Notes = slices.Clone(s.Notes)
	moved := *s.Notes[i]
	moved.Path = to
	m.Notes[i] = &moved
	m.byPath = maps.Clone(s.byPath)
	m.byName = maps.Clone(s.byName)
	m.byAlias = maps.Clone(s.byAlias)
	delete(m.byPath, noteKey(s.Notes[i].Path))
	if j, ok := m.byPath[noteKey(to)]; ok && j != i {
		m.forget(j)
	}
	m.byPath[noteKey(to)] = i
	oldName, newName := strings.ToLower(s.Notes[i].Name()), strings.ToLower(moved.Name())
	m.byName[oldName] = without(m.byName[oldName], i)
	m.byName[newName] = append(slices.Clone(m.byName[newName]), i)
	return &m, nil
}

// forget drops note j from the name and alias tables of a Moved view.
func (s *Snapshot) forget(j int) {
	n := s.Notes[j]
	name := strings.ToLower(n.Name())
	s.byName[name] = without(s.byName[name], j)
	for _, a := range n.Aliases {
		a = strings.ToLower(a)
		s.byAlias[a] = without(s.byAlias[a], j)
	}
}

// without returns a copy of ids without id (nil when empty).
func without(ids []int, id int) []int {
	out := make([]int, 0, len(ids))
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Exact looks a vault-relative path up as a note (".md" optional,
// case-insensitive), then as an attachment — the first step of resolving
// a link target that contains a folder.
func (s *Snapshot) Exact(p string) (LinkKind, string) {
	return s.exact(nfc(strings.TrimPrefix(p, "/")))
}

// MatchCount is how many notes (or, when no note matches, attachments) a
// link target could mean before any tie-break: an exact vault path counts
// as one; a bare name counts the notes with that name, else those with
// that alias, else the attachments with that file name; a partial path
// counts the paths ending with it. A relative target ("./", "../") is
// exact from its note, so it counts as one. Renames use it to keep bare
// links only where the name is unique.
func (s *Snapshot) MatchCount(target string) int {
	t := strings.TrimPrefix(strings.ReplaceAll(nfc(strings.TrimSpace(target)), `\`, "/"), "/")
	switch {
	case t == "":
		return 0
	case strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../"):
		return 1
	}
	if strings.Contains(t, "/") {
		if k, _ := s.exact(t); k != LinkUnresolved {
			return 1
		}
	}
	lower := strings.ToLower(t)
	key := strings.TrimSuffix(lower, ".md")
	name := key[strings.LastIndexByte(key, '/')+1:]
	pathOf := func(i int) string { return s.Notes[i].Path }
	if n := len(filterSuffix(s.byName[name], key, pathOf, ".md")); n > 0 {
		return n
	}
	file := lower[strings.LastIndexByte(lower, '/')+1:]
	atts := len(filterSuffix(s.attByName[file], lower, func(i int) string { return s.Attachments[i].Path }, ""))
	if atts > 0 || strings.Contains(t, "/") {
		return atts
	}
	return len(s.byAlias[lower])
}
