package vault

import (
	"slices"
	"strings"
)

// Filter hides parts of a vault (privacy rules): a file whose path is
// Excluded is never read, and a note that is Private is dropped right
// after parsing, so nothing downstream (search, links, graph, tools) ever
// holds it.
type Filter interface {
	// Excluded reports whether a vault-relative, slash-separated path is
	// hidden by a path rule.
	Excluded(rel string) bool
	// Private reports whether a parsed note hides itself (frontmatter
	// marker).
	Private(n *Note) bool
}

// Privacy is what a snapshot's filter hid: counts only, plus the paths of
// the notes that marked themselves private (kept so the index can drop
// their rows; never shown).
type Privacy struct {
	// Filter is the filter the snapshot was loaded with (nil: none).
	Filter Filter
	// HiddenNotes counts hidden notes (and PDFs when PDFs are documents);
	// HiddenFiles counts the other hidden files (attachments).
	HiddenNotes, HiddenFiles int
	marked                   map[string]bool
	// excluded are the walked paths a path rule hid (true: a document,
	// counted in HiddenNotes), so a live update can keep the counts.
	excluded map[string]bool
}

// FilterFiles drops the files whose path f excludes (nil f keeps all) and
// returns how many it dropped.
func FilterFiles(files []File, f Filter) ([]File, int) {
	if f == nil {
		return files, 0
	}
	kept := files[:0:0]
	for _, file := range files {
		if !f.Excluded(file.Path) {
			kept = append(kept, file)
		}
	}
	return kept, len(files) - len(kept)
}

// dropPrivate removes the notes f calls private and returns their paths.
func dropPrivate(notes []*Note, f Filter) ([]*Note, map[string]bool) {
	if f == nil {
		return notes, nil
	}
	var marked map[string]bool
	kept := notes[:0]
	for _, n := range notes {
		if f.Private(n) {
			if marked == nil {
				marked = map[string]bool{}
			}
			marked[n.Path] = true
			continue
		}
		kept = append(kept, n)
	}
	clear(notes[len(kept):]) // no hidden note stays reachable from the slice
	return kept, marked
}

// Hides reports whether the snapshot's privacy rules hide the file at a
// vault-relative path: a path rule matches it, or the note there marked
// itself private when the snapshot was loaded.
func (s *Snapshot) Hides(rel string) bool {
	return s.RuleHides(rel) || s.Privacy.marked[nfc(strings.TrimPrefix(rel, "/"))]
}

// RuleHides reports whether a path rule of the snapshot's filter matches
// the vault-relative path: a fact about the rules alone, the same whether
// or not a file is there (unlike Hides, which also knows the notes that
// marked themselves private).
func (s *Snapshot) RuleHides(rel string) bool {
	return s.Privacy.Filter != nil && s.Privacy.Filter.Excluded(nfc(strings.TrimPrefix(rel, "/")))
}

// HidesNote reports whether a note parsed now (perhaps newer than the
// snapshot) is hidden: by a path rule or by its own marker.
func (s *Snapshot) HidesNote(n *Note) bool {
	if s.Privacy.Filter == nil {
		return false
	}
	return s.Privacy.Filter.Excluded(n.Path) || s.Privacy.Filter.Private(n)
}

// exclude drops the walked files the filter excludes, counting them.
func (p *Privacy) exclude(notes, atts []File, pdfs bool) ([]File, []File) {
	if p.Filter == nil {
		return notes, atts
	}
	if p.excluded == nil {
		p.excluded = map[string]bool{}
	}
	keptNotes := notes[:0:0]
	for _, n := range notes {
		if p.Filter.Excluded(n.Path) {
			p.HiddenNotes++
			p.excluded[n.Path] = true
		} else {
			keptNotes = append(keptNotes, n)
		}
	}
	kept := atts[:0:0]
	for _, a := range atts {
		switch {
		case !p.Filter.Excluded(a.Path):
			kept = append(kept, a)
		case pdfs && IsPDF(a.Path):
			p.HiddenNotes++
			p.excluded[a.Path] = true
		default:
			p.HiddenFiles++
			p.excluded[a.Path] = false
		}
	}
	return keptNotes, kept
}

// updated is p after a live update that looked again at the paths under
// prefixes: what was hidden there is forgotten, then what the update hid
// now (excluded files, notes marked private) is counted.
func (p Privacy) updated(prefixes []string, excluded map[string]bool, marked []string) Privacy {
	if p.Filter == nil {
		return p
	}
	u := Privacy{Filter: p.Filter, excluded: map[string]bool{}, marked: map[string]bool{}}
	for k, doc := range p.excluded {
		if !coveredBy(k, prefixes) {
			u.excluded[k] = doc
		}
	}
	for k := range p.marked {
		if !coveredBy(k, prefixes) {
			u.marked[k] = true
		}
	}
	for k, doc := range excluded {
		u.excluded[k] = doc
	}
	for _, k := range marked {
		u.marked[k] = true
	}
	for _, doc := range u.excluded {
		if doc {
			u.HiddenNotes++
		} else {
			u.HiddenFiles++
		}
	}
	u.HiddenNotes += len(u.marked)
	return u
}

// keepWarnings drops the warnings about hidden files: a warning names its
// file, and even their number must not change with what is hidden.
func (p *Privacy) keepWarnings(ws []Warning) []Warning {
	if p.Filter == nil {
		return ws
	}
	return slices.DeleteFunc(ws, func(w Warning) bool { return p.marked[w.Path] || p.Filter.Excluded(w.Path) })
}

// WithMarked returns a copy of p in which the note at path is (hidden
// true) or is not hidden by its own marker, with HiddenNotes adjusted:
// for an incremental loader that re-parses one file. p is not modified.
func (p Privacy) WithMarked(path string, hidden bool) Privacy {
	if p.marked[path] == hidden {
		return p
	}
	marked := make(map[string]bool, len(p.marked)+1)
	for k := range p.marked {
		marked[k] = true
	}
	if hidden {
		marked[path] = true
		p.HiddenNotes++
	} else {
		delete(marked, path)
		p.HiddenNotes--
	}
	p.marked = marked
	return p
}
