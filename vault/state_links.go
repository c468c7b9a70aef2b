package vault

import (
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/wire"
)

// How a link's resolution is stored: what it resolved to, then the index
// of that note or attachment in the snapshot (a path's bytes once, in its
// note, however many links point at it).
const (
	resUnresolved = iota // Kind LinkUnresolved, no path
	resNote              // Resolved is the path of note N
	resAttachment        // Resolved is the path of attachment N
	resOther             // Kind and Resolved as text (any other case)
)

// linkTarget is a decoded link whose Resolved path is known by index
// only until every note and attachment is read.
type linkTarget struct {
	link  *Link
	kind  int // resNote or resAttachment
	index int
}

func encodeResolution(w *wire.Writer, l Link, s *Snapshot) {
	if l.Kind == LinkUnresolved && l.Resolved == "" {
		w.Uint(resUnresolved)
		return
	}
	if l.Kind == LinkNote {
		if i, ok := slices.BinarySearchFunc(s.Notes, l.Resolved, func(n *Note, p string) int { return strings.Compare(n.Path, p) }); ok {
			w.Uint(resNote)
			w.Len(i)
			return
		}
	}
	if l.Kind == LinkAttachment {
		if i, ok := slices.BinarySearchFunc(s.Attachments, l.Resolved, func(a Attachment, p string) int { return strings.Compare(a.Path, p) }); ok {
			w.Uint(resAttachment)
			w.Len(i)
			return
		}
	}
	w.Uint(resOther)
	w.Text(string(l.Kind))
	w.Text(l.Resolved)
}

func decodeResolution(r *wire.Reader, l *Link, targets []linkTarget) []linkTarget {
	switch tag := r.Uint(); tag {
	case resUnresolved:
		l.Kind = LinkUnresolved
	case resNote, resAttachment:
		targets = append(targets, linkTarget{l, int(tag), r.Nat()})
	case resOther:
		l.Kind, l.Resolved = LinkKind(r.Text()), r.Text()
	default:
		r.Check(false, "unknown link resolution")
	}
	return targets
}

// resolveTargets sets the links decoded as indexes to the paths they
// name, checking each index.
func resolveTargets(r *wire.Reader, notes []*Note, atts []Attachment, targets []linkTarget) {
	for _, t := range targets {
		switch {
		case r.Err() != nil:
			return
		case t.kind == resNote && t.index < len(notes):
			t.link.Kind, t.link.Resolved = LinkNote, notes[t.index].Path
		case t.kind == resAttachment && t.index < len(atts):
			t.link.Kind, t.link.Resolved = LinkAttachment, atts[t.index].Path
		default:
			r.Check(false, "link resolved to a file out of range")
		}
	}
}
