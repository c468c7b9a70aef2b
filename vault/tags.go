package vault

import (
	"slices"
	"strings"
)

// FoldTag is the identity of a tag: without leading '#' and trailing '/',
// NFC, lower case. "#Project/A" and "project/a" are the same tag.
func FoldTag(tag string) string {
	t := strings.TrimRight(strings.TrimLeft(strings.TrimSpace(tag), "#"), "/")
	return strings.ToLower(nfc(t))
}

// TagParents returns the ancestors of a folded tag, outermost first:
// "a/b/c" → ["a", "a/b"]. Empty segments ("a//b") add no ancestor.
func TagParents(tag string) []string {
	var out []string
	for i := 1; i < len(tag); i++ {
		if tag[i] == '/' && tag[i-1] != '/' {
			out = append(out, tag[:i])
		}
	}
	return out
}

// TagCount is how many notes carry a tag. A note counts once per tag, and
// a nested tag counts for its ancestors too: a note tagged a/b/c counts
// for a/b/c, a/b and a.
type TagCount struct {
	// Tag is folded (see FoldTag).
	Tag string
	// Count is the number of notes with the tag or a tag nested under it;
	// Direct the number with exactly this tag.
	Count, Direct int
	// Frontmatter counts the notes whose frontmatter tags hold the tag (or
	// a nested one); Inline the others (Frontmatter + Inline = Count).
	Frontmatter, Inline int
	// Children is the number of distinct tags one level below.
	Children int
}

// noteTag is one tag a note counts for.
type noteTag struct {
	id         int32
	direct, fm bool
}

// Tags counts the tags of a snapshot. It is built once and immutable.
type Tags struct {
	names  []string    // tag id → folded tag, ascending
	parent []int32     // tag id → parent id, -1 at the top
	notes  [][]noteTag // note id → tags it counts for
	all    []TagCount  // counts over the whole vault
}

// NewTags counts the tags of every note of s.
func NewTags(s *Snapshot) *Tags {
	perNote := make([]map[string]noteTag, len(s.Notes))
	names := map[string]bool{}
	for i, n := range s.Notes {
		perNote[i] = noteTagSet(n)
		for t := range perNote[i] {
			names[t] = true
		}
	}
	x := &Tags{names: make([]string, 0, len(names)), notes: make([][]noteTag, len(s.Notes))}
	for t := range names {
		x.names = append(x.names, t)
	}
	slices.Sort(x.names)
	ids := make(map[string]int32, len(x.names))
	for i, t := range x.names {
		ids[t] = int32(i)
	}
	x.parent = make([]int32, len(x.names))
	for i, t := range x.names {
		x.parent[i] = -1
		if p := TagParents(t); len(p) > 0 {
			x.parent[i] = ids[p[len(p)-1]]
		}
	}
	for i, set := range perNote {
		for t, nt := range set {
			nt.id = ids[t]
			x.notes[i] = append(x.notes[i], nt)
		}
		slices.SortFunc(x.notes[i], func(a, b noteTag) int { return int(a.id - b.id) })
	}
	x.all = x.count(nil)
	return x
}

// noteTagSet maps every tag a note counts for to whether it carries it
// directly and whether it (or a nested tag) is in the frontmatter.
func noteTagSet(n *Note) map[string]noteTag {
	if len(n.Tags) == 0 {
		return nil
	}
	set := make(map[string]noteTag, 2*len(n.Tags))
	add := func(tags []string, fm bool) {
		for _, raw := range tags {
			t := FoldTag(raw)
			if t == "" {
				continue
			}
			for _, a := range append(TagParents(t), t) {
				nt := set[a]
				nt.direct = nt.direct || a == t
				nt.fm = nt.fm || fm
				set[a] = nt
			}
		}
	}
	add(n.FrontmatterTags, true)
	add(n.Tags, false)
	return set
}

// Len is the number of distinct tags, nested parents included.
func (x *Tags) Len() int { return len(x.names) }

// Counts returns the tags of the notes keep accepts (nil: every note)
// with their counts, sorted by tag. Tags no accepted note carries are
// left out. The result is shared when keep is nil: do not modify it.
func (x *Tags) Counts(keep func(note int) bool) []TagCount {
	if keep == nil {
		return x.all
	}
	return x.count(keep)
}

func (x *Tags) count(keep func(note int) bool) []TagCount {
	counts := make([]TagCount, len(x.names))
	for i, tags := range x.notes {
		if keep != nil && len(tags) > 0 && !keep(i) {
			continue
		}
		for _, nt := range tags {
			c := &counts[nt.id]
			c.Count++
			if nt.direct {
				c.Direct++
			}
			if nt.fm {
				c.Frontmatter++
			} else {
				c.Inline++
			}
		}
	}
	for id, c := range counts {
		if c.Count > 0 && x.parent[id] >= 0 {
			counts[x.parent[id]].Children++
		}
	}
	out := make([]TagCount, 0, len(counts))
	for id, c := range counts {
		if c.Count > 0 {
			c.Tag = x.names[id]
			out = append(out, c)
		}
	}
	return out
}
