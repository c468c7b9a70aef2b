package vault

import (
	"path"
	"strings"
)

// Resolve finds what a link target written in the note at from points to,
// the way Obsidian does: a "./" or "../" path relative to the note; for a
// target with a folder, an exact vault path, then a path relative to the
// note's folder; then a bare name
// (case-insensitive; the same folder first, then the fewest folders, the
// shortest path, the lexically first), a path
// suffix, and finally a frontmatter alias. Notes win over attachments of the
// same name. An empty target is the note itself ([[#Heading]]).
func (s *Snapshot) Resolve(target, from string) (LinkKind, string) {
	t := strings.TrimPrefix(strings.ReplaceAll(nfc(strings.TrimSpace(target)), `\`, "/"), "/")
	if t == "" {
		if i, ok := s.NoteID(from); ok {
			return LinkNote, s.Notes[i].Path
		}
		return LinkUnresolved, ""
	}
	dir := folderOf(from)
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		p := path.Join(dir, t)
		if p == ".." || strings.HasPrefix(p, "../") {
			return LinkUnresolved, "" // escapes the vault
		}
		return s.exact(p)
	}
	if strings.Contains(t, "/") { // a bare name is matched by name below, same folder first
		if k, p := s.exact(t); k != LinkUnresolved {
			return k, p
		}
		if dir != "" {
			if k, p := s.exact(path.Join(dir, t)); k != LinkUnresolved {
				return k, p
			}
		}
	}
	if k, p := s.byNameOrSuffix(t, dir); k != LinkUnresolved {
		return k, p
	}
	if !strings.Contains(t, "/") {
		if i, ok := pick(s.byAlias[strings.ToLower(t)], s.Notes, dir); ok {
			return LinkNote, s.Notes[i].Path
		}
	}
	return LinkUnresolved, ""
}

// ResolveLink resolves a parsed link from the note at from. A markdown
// link's path is tried relative to the note's folder before anything else,
// as Obsidian writes them that way; a wikilink goes through [Snapshot.Resolve].
func (s *Snapshot) ResolveLink(l Link, from string) (LinkKind, string) {
	if dir := folderOf(from); l.Markdown && dir != "" {
		t := strings.ReplaceAll(nfc(strings.TrimSpace(l.Target)), `\`, "/")
		if t != "" && !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
			if k, p := s.exact(path.Join(dir, t)); k != LinkUnresolved {
				return k, p
			}
		}
	}
	return s.Resolve(l.Target, from)
}

// exact looks a vault-relative path up as a note (".md" optional), then as
// an attachment.
func (s *Snapshot) exact(p string) (LinkKind, string) {
	if i, ok := s.byPath[noteKey(p)]; ok && s.Notes[i].Kind != KindPDF {
		return LinkNote, s.Notes[i].Path
	}
	if i, ok := s.attByPath[strings.ToLower(p)]; ok {
		return LinkAttachment, s.Attachments[i].Path
	}
	return LinkUnresolved, ""
}

// byNameOrSuffix matches a bare name ("Note") or a partial path
// ("Folder/Note") against the end of every path.
func (s *Snapshot) byNameOrSuffix(t, dir string) (LinkKind, string) {
	lower := strings.ToLower(t)
	noteKey := strings.TrimSuffix(lower, ".md")
	name := noteKey[strings.LastIndexByte(noteKey, '/')+1:]
	if i, ok := pick(filterSuffix(s.byName[name], noteKey, func(i int) string { return s.Notes[i].Path }, ".md"), s.Notes, dir); ok {
		return LinkNote, s.Notes[i].Path
	}
	file := lower[strings.LastIndexByte(lower, '/')+1:]
	cands := filterSuffix(s.attByName[file], lower, func(i int) string { return s.Attachments[i].Path }, "")
	if len(cands) > 0 {
		best := cands[0]
		for _, i := range cands[1:] {
			if better(s.Attachments[i].Path, s.Attachments[best].Path, dir) {
				best = i
			}
		}
		return LinkAttachment, s.Attachments[best].Path
	}
	return LinkUnresolved, ""
}

// filterSuffix keeps candidates whose lower-cased path (minus ext) equals
// want or ends with "/"+want.
func filterSuffix(cands []int, want string, pathOf func(int) string, ext string) []int {
	if !strings.Contains(want, "/") {
		return cands
	}
	var out []int
	for _, i := range cands {
		p := strings.ToLower(strings.TrimSuffix(pathOf(i), ext))
		if p == want || strings.HasSuffix(p, "/"+want) {
			out = append(out, i)
		}
	}
	return out
}

// pick chooses among notes with the same name: the one in dir, else the
// fewest folders deep, else the shortest path, else the lexically first.
func pick(cands []int, notes []*Note, dir string) (int, bool) {
	if len(cands) == 0 {
		return 0, false
	}
	best := cands[0]
	for _, i := range cands[1:] {
		if better(notes[i].Path, notes[best].Path, dir) {
			best = i
		}
	}
	return best, true
}

func better(a, b, dir string) bool {
	ad, bd := folderOf(a) == dir, folderOf(b) == dir
	if ad != bd {
		return ad
	}
	if sa, sb := strings.Count(a, "/"), strings.Count(b, "/"); sa != sb {
		return sa < sb
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
