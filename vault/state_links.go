package vault

import (
	"slices"
	"strings"

	"github.com/enquire-mcp/enquire-mcp/statefile"
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

func encodeResolution(w *statefile.Writer, l Link, s *Snapshot) {
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

func decodeResolution(r *statefile.Reader, l *Link, targets *targetList) {
	switch tag := r.Uint(); tag {
	case resUnresolved:
		l.Kind = LinkUnresolved
	case resNote, resAttachment:
		targets.add(linkTarget{l, int(tag), r.Nat()})
	case resOther:
		l.Kind, l.Resolved = LinkKind(r.Text()), r.Text()
	default:
		r.Check(false, "unknown link resolution")
	}
}

// targetList holds the links decoded as indexes until every note is
// read, in blocks of targetBlock: one per resolved link, which one
// growing slice copied over and over at every start of a big vault.
type targetList struct{ blocks [][]linkTarget }

const targetBlock = 4096

func (t *targetList) add(lt linkTarget) {
	if n := len(t.blocks); n == 0 || len(t.blocks[n-1]) == targetBlock {
		t.blocks = append(t.blocks, make([]linkTarget, 0, targetBlock))
	}
	last := &t.blocks[len(t.blocks)-1]
	*last = append(*last, lt)
}

// resolveTargets sets the links decoded as indexes to the paths they
// name, checking each index.
func resolveTargets(r *statefile.Reader, notes []*Note, atts []Attachment, targets *targetList) {
	for _, block := range targets.blocks {
		for _, t := range block {
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
}
