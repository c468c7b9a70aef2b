package vault

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Snapshot is an immutable, fully resolved view of a vault at one moment.
// All methods are safe for concurrent use.
type Snapshot struct {
	// Root is the vault's real (symlink-free) absolute path.
	Root string
	// Notes are sorted by Path; a note's index is its id in this snapshot.
	Notes       []*Note
	Attachments []Attachment
	Warnings    []Warning
	LoadedAt    time.Time
	// Privacy is what the privacy rules hid (see [Filter]).
	Privacy Privacy

	byPath    map[string]int   // lower(path minus ".md") → note
	byExact   map[string]int   // path as stored → note
	byName    map[string][]int // lower(name) → notes
	byAlias   map[string][]int // lower(alias) → notes
	attByPath map[string]int   // lower(path) → attachment
	attByName map[string][]int // lower(file name) → attachments

	files *snapshotFS // the vault handle (see Files)
}

// NewSnapshot indexes notes and attachments and resolves every link. The
// slices are sorted in place and owned by the snapshot from then on.
func NewSnapshot(root string, notes []*Note, atts []Attachment, warnings []Warning) *Snapshot {
	slices.SortFunc(notes, func(a, b *Note) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(atts, func(a, b Attachment) int { return strings.Compare(a.Path, b.Path) })
	s := indexed(root, notes, atts, warnings)
	for _, n := range notes {
		for j := range n.Links {
			l := &n.Links[j]
			l.Kind, l.Resolved = s.ResolveLink(*l, n.Path)
		}
	}
	return s
}

// indexed builds the lookup tables of sorted notes and attachments,
// resolving nothing.
func indexed(root string, notes []*Note, atts []Attachment, warnings []Warning) *Snapshot {
	s := &Snapshot{
		Root: root, Notes: notes, Attachments: atts, Warnings: warnings, LoadedAt: time.Now(),
		byPath:    make(map[string]int, len(notes)),
		byExact:   make(map[string]int, len(notes)),
		byName:    make(map[string][]int, len(notes)),
		byAlias:   make(map[string][]int),
		attByPath: make(map[string]int, len(atts)),
		attByName: make(map[string][]int, len(atts)),
		files:     &snapshotFS{root: root},
	}
	for i, n := range notes {
		s.byPath[noteKey(n.Path)] = i
		s.byExact[n.Path] = i
		if n.Kind == KindPDF {
			continue // a PDF is linked as an attachment, by its file name
		}
		name := strings.ToLower(n.Name())
		s.byName[name] = append(s.byName[name], i)
		for _, a := range n.Aliases {
			a = strings.ToLower(a)
			s.byAlias[a] = append(s.byAlias[a], i)
		}
	}
	for i, a := range atts {
		p := strings.ToLower(a.Path)
		s.attByPath[p] = i
		file := p[strings.LastIndexByte(p, '/')+1:]
		s.attByName[file] = append(s.attByName[file], i)
	}
	return s
}

// noteKey is the lookup key of a note path: lower case, without ".md".
func noteKey(p string) string { return strings.TrimSuffix(strings.ToLower(p), ".md") }

// NoteID returns the id of the note at a vault-relative path (".md"
// optional, case-insensitive).
func (s *Snapshot) NoteID(p string) (int, bool) {
	i, ok := s.byPath[noteKey(nfc(strings.TrimPrefix(p, "/")))]
	return i, ok
}

// NoteIDExact returns the id of the note whose Path is exactly p: for
// paths that came from the vault itself (an index row, a resolved link),
// where the forgiving NoteID could confuse "Note.md" with "note.md".
func (s *Snapshot) NoteIDExact(p string) (int, bool) {
	i, ok := s.byExact[p]
	return i, ok
}

// Note returns the note at a vault-relative path, or nil.
func (s *Snapshot) Note(p string) *Note {
	if i, ok := s.NoteID(p); ok {
		return s.Notes[i]
	}
	return nil
}

// Lookup finds a note by path, by name or alias (resolved like a wikilink
// from the vault root), or by frontmatter title.
func (s *Snapshot) Lookup(ref string) *Note {
	if n := s.Note(ref); n != nil {
		return n
	}
	if k, p := s.Resolve(ref, ""); k == LinkNote {
		return s.Note(p)
	}
	ref = strings.TrimSpace(ref)
	for _, n := range s.Notes {
		if strings.EqualFold(n.Title, ref) {
			return n
		}
	}
	return nil
}

// Suggest returns up to limit note paths whose name, title or alias is
// closest to ref (edit distance on lower-case text), for "did you mean".
func (s *Snapshot) Suggest(ref string, limit int) []string {
	ref = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(ref), ".md"))
	ref = ref[strings.LastIndexByte(ref, '/')+1:]
	if utf8.RuneCountInString(ref) > maxSuggestRunes {
		return nil // no title is that long; edit distances would cost seconds
	}
	type scored struct {
		path string
		d    int
	}
	var all []scored
	for _, n := range s.Notes {
		best := len(ref) + 1
		for _, alt := range append([]string{n.Name(), n.Title}, n.Aliases...) {
			if len(alt) > 4*maxSuggestRunes {
				continue
			}
			alt = strings.ToLower(alt)
			d := editDistance(ref, alt)
			if ref != "" && strings.Contains(alt, ref) {
				d = min(d, 1) // a fragment of a long title is a good guess
			}
			best = min(best, d)
		}
		if best <= max(len(ref)/2, 3) {
			all = append(all, scored{n.Path, best})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	if limit <= 0 {
		return nil
	}
	out := make([]string, 0, limit)
	for _, c := range all[:min(limit, len(all))] {
		out = append(out, c.path)
	}
	return out
}

// maxSuggestRunes bounds the names Suggest compares.
const maxSuggestRunes = 128

// editDistance is the Levenshtein distance over runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
