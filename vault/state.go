package vault

import (
	"fmt"
	"maps"
	"slices"

	"github.com/enquire-mcp/enquire-mcp/statefile"
)

// EncodeState appends the snapshot to w: every note as parsed, with its
// links' resolution (as the index of the note or attachment they resolve
// to, so that a start need not resolve them again), the attachments and
// the load's warnings; nothing of the files the privacy rules hid. It
// fails on a frontmatter value of a type YAML decoding never produces
// here.
func (s *Snapshot) EncodeState(w *statefile.Writer) error {
	size := 0
	for _, n := range s.Notes {
		size += len(n.Body) + len(n.Path) + 256 // the rest of a note: a guess
	}
	w.Grow(size)
	w.Len(len(s.Notes))
	for _, n := range s.Notes {
		if err := encodeNote(w, n, s); err != nil {
			return fmt.Errorf("note %s: %w", n.Path, err)
		}
	}
	// The bodies follow the notes, together: what a start reads of every
	// note (paths, sizes, hashes, links) then fills few pages of memory,
	// and the text stays in the file until a search shows it.
	for _, n := range s.Notes {
		w.Buf = append(w.Buf, n.Body...)
	}
	w.Len(len(s.Attachments))
	for _, a := range s.Attachments {
		w.Text(a.Path)
		w.Int(a.Size)
		w.Time(a.ModTime)
	}
	w.Len(len(s.Warnings))
	for _, wa := range s.Warnings {
		w.Text(wa.Path)
		w.Text(wa.Message)
		w.Bool(wa.Retry)
	}
	// Nothing of the privacy rules' work is saved, not even the paths of
	// the hidden files: no file the program writes may name one. The
	// hidden files are absent from the notes and attachments, so at each
	// start ChangedFiles reports them as new and Update finds them hidden
	// again, restoring the counts.
	return nil
}

// DecodeState reads a snapshot EncodeState wrote, for the vault at root
// (a real root, see RealRoot) loaded with filter; the caller vouches that
// the state was made with the same options and rules. The files are not
// looked at: [Snapshot.Changed] tells what differs on disk now. Its
// Privacy counts nothing until an Update has seen the hidden files,
// which [Snapshot.ChangedFiles] always reports (see EncodeState).
func DecodeState(r *statefile.Reader, root string, filter Filter) (*Snapshot, error) {
	notes := make([]*Note, r.Len(8))
	targets := &targetList{}
	bodyLens := make([]int, len(notes))
	var block []Note
	for i := range notes {
		if len(block) == 0 {
			// The notes are allocated a block at a time, not one by one
			// (107,000 allocations at a start), and never beyond what
			// was decoded, whatever a damaged count says.
			block = make([]Note, min(noteBlock, len(notes)-i))
		}
		notes[i], block = &block[0], block[1:]
		decodeNote(r, targets, notes[i])
		bodyLens[i] = r.Nat()
	}
	for i, n := range notes {
		n.Body = r.Fixed(bodyLens[i]) // not touched: it stays in the file
	}
	atts := make([]Attachment, r.Len(3))
	for i := range atts {
		atts[i] = Attachment{Path: r.Text(), Size: r.Int(), ModTime: r.Time()}
	}
	for i := 1; i < len(atts); i++ {
		r.Check(atts[i-1].Path < atts[i].Path, "attachments out of order")
	}
	resolveTargets(r, notes, atts, targets)
	var warnings []Warning
	for range r.Len(3) {
		warnings = append(warnings, Warning{Path: r.Text(), Message: r.Text(), Retry: r.Bool()})
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	for i := 1; i < len(notes); i++ {
		if notes[i-1].Path >= notes[i].Path {
			return nil, fmt.Errorf("%w: notes out of order at %q", statefile.ErrCorrupt, notes[i].Path)
		}
	}
	s := indexed(root, notes, atts, warnings) // sorted, links resolved: as saved
	s.Privacy = Privacy{Filter: filter}       // see EncodeState
	return s, nil
}

func encodeNote(w *statefile.Writer, n *Note, s *Snapshot) error {
	w.Text(n.Path)
	w.Text(n.Kind)
	w.Text(n.Title)
	w.Strings(n.Aliases)
	w.Strings(n.FrontmatterTags)
	w.Strings(n.InlineTags)
	w.Strings(n.Tags)
	w.Bool(n.Frontmatter != nil)
	if n.Frontmatter != nil {
		if err := encodeValue(w, n.Frontmatter); err != nil {
			return err
		}
	}
	w.Len(len(n.Headings))
	for _, h := range n.Headings {
		w.Len(h.Level)
		w.Text(h.Text)
		w.Len(h.Line)
	}
	w.Len(len(n.Blocks))
	for _, b := range n.Blocks {
		w.Text(b.ID)
		w.Len(b.Line)
	}
	w.Len(len(n.Links))
	for _, l := range n.Links {
		w.Text(l.Raw)
		w.Text(l.Target)
		w.Text(l.Heading)
		w.Text(l.Block)
		w.Text(l.Alias)
		w.Bool(l.Embed)
		w.Bool(l.Markdown)
		w.Len(l.Line)
		w.Text(l.Property)
		encodeResolution(w, l, s)
	}
	w.Len(n.BodyLine)
	w.Len(len(n.Pages))
	for _, p := range n.Pages {
		w.Len(p.Number)
		w.Len(p.Line)
		w.Bool(p.OCR)
	}
	w.Int(n.Size)
	w.Time(n.ModTime)
	w.Text(n.Hash)
	w.Text(n.OCRKey)
	w.Len(len(n.Body)) // the text itself comes after every note
	return nil
}

// noteBlock is how many notes DecodeState allocates at once.
const noteBlock = 1024

// decodeNote reads a note into n; its links' resolved targets are added
// to targets, for resolveTargets once every note is read.
func decodeNote(r *statefile.Reader, targets *targetList, n *Note) {
	*n = Note{Path: r.Text(), Kind: r.Text(), Title: r.Text(), Aliases: r.Strings(),
		FrontmatterTags: r.Strings(), InlineTags: r.Strings(), Tags: r.Strings()}
	if r.Bool() {
		fm, _ := decodeValue(r, 0).(map[string]any)
		r.Check(fm != nil, "frontmatter is not a map")
		n.Frontmatter = fm
	}
	if k := r.Len(3); k > 0 {
		n.Headings = make([]Heading, k)
		for i := range n.Headings {
			n.Headings[i] = Heading{Level: r.Nat(), Text: r.Text(), Line: r.Nat()}
		}
	}
	if k := r.Len(2); k > 0 {
		n.Blocks = make([]Block, k)
		for i := range n.Blocks {
			n.Blocks[i] = Block{ID: r.Text(), Line: r.Nat()}
		}
	}
	if k := r.Len(9); k > 0 {
		n.Links = make([]Link, k)
		for i := range n.Links {
			n.Links[i] = Link{Raw: r.Text(), Target: r.Text(), Heading: r.Text(), Block: r.Text(),
				Alias: r.Text(), Embed: r.Bool(), Markdown: r.Bool(), Line: r.Nat(), Property: r.Text()}
			decodeResolution(r, &n.Links[i], targets)
		}
	}
	n.BodyLine = r.Nat()
	if k := r.Len(3); k > 0 {
		n.Pages = make([]Page, k)
		for i := range n.Pages {
			n.Pages[i] = Page{Number: r.Nat(), Line: r.Nat(), OCR: r.Bool()}
		}
	}
	n.Size = r.Int()
	n.ModTime = r.Time()
	n.Hash = r.Text()
	n.OCRKey = r.Text()
}

// Value tags of the frontmatter encoding: the types normalizeYAML leaves.
const (
	tagNil = iota
	tagString
	tagInt
	tagUint
	tagFloat64
	tagFloat32
	tagBool
	tagList
	tagMap
)

func encodeValue(w *statefile.Writer, v any) error {
	switch x := v.(type) {
	case nil:
		w.Uint(tagNil)
	case string:
		w.Uint(tagString)
		w.Text(x)
	case int:
		w.Uint(tagInt)
		w.Int(int64(x))
	case uint64:
		w.Uint(tagUint)
		w.Uint(x)
	case float64:
		w.Uint(tagFloat64)
		w.Float64(x)
	case float32:
		w.Uint(tagFloat32)
		w.Float32(x)
	case bool:
		w.Uint(tagBool)
		w.Bool(x)
	case []any:
		w.Uint(tagList)
		w.Len(len(x))
		for _, e := range x {
			if err := encodeValue(w, e); err != nil {
				return err
			}
		}
	case map[string]any:
		w.Uint(tagMap)
		w.Len(len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			w.Text(k)
			if err := encodeValue(w, x[k]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("frontmatter value of type %T", v)
	}
	return nil
}

// maxValueDepth bounds the nesting a damaged file could claim.
const maxValueDepth = 64

func decodeValue(r *statefile.Reader, depth int) any {
	if depth > maxValueDepth {
		r.Check(false, "frontmatter nested too deep")
		return nil
	}
	switch tag := r.Uint(); tag {
	case tagNil:
		return nil
	case tagString:
		return r.Text()
	case tagInt:
		return int(r.Int())
	case tagUint:
		return r.Uint()
	case tagFloat64:
		return r.Float64()
	case tagFloat32:
		return r.Float32()
	case tagBool:
		return r.Bool()
	case tagList:
		out := make([]any, r.Len(1))
		for i := range out {
			out[i] = decodeValue(r, depth+1)
		}
		return out
	case tagMap:
		k := r.Len(2)
		out := make(map[string]any, k)
		for range k {
			key := r.Text()
			out[key] = decodeValue(r, depth+1)
		}
		return out
	default:
		r.Check(false, fmt.Sprintf("unknown value tag %d", tag))
		return nil
	}
}
