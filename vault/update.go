package vault

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Delta says how an updated snapshot differs from the one it was made
// from, so that what is built on a snapshot (chunks, rankers, the graph)
// can follow the change instead of being rebuilt.
type Delta struct {
	// Old maps every note id of the new snapshot to the id of the same
	// content in the old one, or -1 when the note is new or its file
	// changed.
	Old []int
	// Added lists the new snapshot's notes with new content (ascending).
	Added []int
	// Removed lists the old snapshot's notes whose content is gone:
	// deleted, changed or moved (ascending).
	Removed []int
	// Relinked lists notes whose content did not change but whose links
	// resolve differently now (ascending).
	Relinked []int
	// Attachments is true when attachments came or went.
	Attachments bool
}

// Changed reports whether the snapshot changed at all.
func (d *Delta) Changed() bool {
	return len(d.Added)+len(d.Removed)+len(d.Relinked) > 0 || d.Attachments
}

// Shifted reports whether note ids moved: a note came or went, so every
// structure indexed by note id must be remapped through Old.
func (d *Delta) Shifted() bool { return len(d.Added) != len(d.Removed) || !d.sameIDs() }

func (d *Delta) sameIDs() bool {
	for i, o := range d.Old {
		if o >= 0 && o != i {
			return false
		}
	}
	return true
}

// Update returns a snapshot in which the files at paths (vault-relative:
// notes, attachments, or folders, meaning everything under them) are as
// they are on disk now, and a Delta saying what changed. Everything else
// is shared with s, which is not modified: unchanged notes are reused,
// files are re-read only at the given paths, a file whose content hash did
// not change keeps its parsed note, and only links whose target could
// mean a note that came, went or changed its aliases are resolved again.
// The result equals a fresh Load of the vault when paths cover every
// change since s was loaded.
func (s *Snapshot) Update(ctx context.Context, paths []string, opts Options) (*Snapshot, *Delta, error) {
	sc := s.scan(ctx, paths, opts)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	docs := sc.notes
	if opts.PDFs {
		for _, a := range sc.atts {
			if IsPDF(a.Path) {
				docs = append(docs, a)
			}
		}
	}
	fresh, warnings := s.reread(ctx, docs, opts)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var marked []string
	if opts.Filter != nil {
		var private map[string]bool
		fresh, private = dropPrivate(fresh, opts.Filter)
		for p := range private {
			marked = append(marked, p)
		}
		warnings = slices.DeleteFunc(warnings, func(w Warning) bool { return private[w.Path] })
	}
	notes, old := s.mergeNotes(sc, fresh)
	atts := s.mergeAttachments(sc)
	warnings = s.mergeWarnings(sc, append(sc.warnings, warnings...))
	d := &Delta{Old: old, Attachments: len(atts) != len(s.Attachments) || !sameAttachmentPaths(s, sc)}
	var ns *Snapshot
	privacy := s.Privacy.updated(sc.prefixes, sc.excluded, marked)
	if !d.Attachments && s.sameKeys(notes) {
		// The common edit: the same files, the same names and aliases.
		// Every lookup table still holds: share them.
		c := *s
		c.Notes, c.Attachments, c.Warnings, c.LoadedAt = notes, atts, warnings, time.Now()
		ns = &c
	} else {
		ns = indexed(s.Root, notes, atts, warnings)
		ns.files = s.files // the same vault, the same handle
	}
	ns.Privacy = privacy
	for i, o := range old {
		if o < 0 {
			d.Added = append(d.Added, i)
		}
	}
	kept := make([]bool, len(s.Notes))
	for _, o := range old {
		if o >= 0 {
			kept[o] = true
		}
	}
	for i, k := range kept {
		if !k {
			d.Removed = append(d.Removed, i)
		}
	}
	ns.relink(s, d, sc)
	return ns, d, nil
}

// sameKeys reports whether notes are s.Notes with the same paths, kinds
// and aliases in the same places (contents may differ): then every lookup
// table of s is right for notes too.
func (s *Snapshot) sameKeys(notes []*Note) bool {
	if len(notes) != len(s.Notes) {
		return false
	}
	for i, n := range notes {
		o := s.Notes[i]
		if n != o && (n.Path != o.Path || n.Kind != o.Kind || !slices.Equal(n.Aliases, o.Aliases)) {
			return false
		}
	}
	return true
}

// scanned is what Update found at its paths: the old snapshot's notes and
// attachments there, and the files on disk there now.
type scanned struct {
	oldNotes, oldAtts []int // ids in the old snapshot, ascending
	notes, atts       []File
	warnings          []Warning
	prefixes          []string        // the scanned paths, for dropping old warnings
	excluded          map[string]bool // files there the privacy rules hide (true: a document)
}

// scan lists, for each path, the old entries at or under it and the files
// at or under it on disk (folders are walked as Load walks them).
func (s *Snapshot) scan(ctx context.Context, paths []string, opts Options) scanned {
	sc := scanned{excluded: map[string]bool{}}
	seenNote, seenAtt := map[int]bool{}, map[int]bool{}
	onDisk := map[string]bool{}
	for _, p := range paths {
		p = cleanScanPath(p)
		if p == "" || hidden(p) {
			continue
		}
		sc.prefixes = append(sc.prefixes, p)
		for _, i := range s.notesUnder(p) {
			if !seenNote[i] {
				seenNote[i] = true
				sc.oldNotes = append(sc.oldNotes, i)
			}
		}
		for _, i := range s.attachmentsUnder(p) {
			if !seenAtt[i] {
				seenAtt[i] = true
				sc.oldAtts = append(sc.oldAtts, i)
			}
		}
		notes, atts, warnings := s.filesAt(ctx, p)
		if opts.Filter != nil {
			notes, atts, warnings = sc.hide(opts, notes, atts, warnings)
		}
		sc.warnings = append(sc.warnings, warnings...)
		for _, f := range notes {
			if !onDisk[f.Path] {
				onDisk[f.Path] = true
				sc.notes = append(sc.notes, f)
			}
		}
		for _, f := range atts {
			if !onDisk[f.Path] {
				onDisk[f.Path] = true
				sc.atts = append(sc.atts, f)
			}
		}
	}
	slices.Sort(sc.oldNotes)
	slices.Sort(sc.oldAtts)
	byPath := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(sc.notes, byPath)
	slices.SortFunc(sc.atts, byPath)
	return sc
}

// hide drops the files the privacy rules exclude (recording them for the
// counts) and the warnings about them.
func (sc *scanned) hide(opts Options, notes, atts []File, warnings []Warning) ([]File, []File, []Warning) {
	keep := func(files []File, doc func(File) bool) []File {
		return slices.DeleteFunc(files, func(f File) bool {
			if opts.Filter.Excluded(f.Path) {
				sc.excluded[f.Path] = doc(f)
				return true
			}
			return false
		})
	}
	notes = keep(notes, func(File) bool { return true })
	atts = keep(atts, func(f File) bool { return opts.PDFs && IsPDF(f.Path) })
	warnings = slices.DeleteFunc(warnings, func(w Warning) bool { return opts.Filter.Excluded(w.Path) })
	return notes, atts, warnings
}

// cleanScanPath normalises a vault-relative path the way Load names files.
func cleanScanPath(p string) string {
	p = nfc(strings.Trim(filepath.ToSlash(p), "/"))
	if p == "." {
		return ""
	}
	return p
}

// hidden reports whether any element of a vault-relative path is one Load
// never enters (dot-folders, node_modules).
func hidden(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if Skipped(part) {
			return true
		}
	}
	return false
}

// notesUnder returns the ids of the notes at p or inside folder p.
func (s *Snapshot) notesUnder(p string) []int {
	return under(len(s.Notes), func(i int) string { return s.Notes[i].Path }, p)
}

func (s *Snapshot) attachmentsUnder(p string) []int {
	return under(len(s.Attachments), func(i int) string { return s.Attachments[i].Path }, p)
}

// under finds, in a path-sorted list, the entries equal to p or below p/.
func under(n int, at func(int) string, p string) []int {
	var out []int
	if i := sort.Search(n, func(i int) bool { return at(i) >= p }); i < n && at(i) == p {
		out = append(out, i)
	}
	prefix := p + "/"
	for i := sort.Search(n, func(i int) bool { return at(i) >= prefix }); i < n && strings.HasPrefix(at(i), prefix); i++ {
		out = append(out, i)
	}
	return out
}

// filesAt lists what is on disk at p: one file, a folder's files, or
// nothing (gone, a symlink, not a regular file). Everything is looked at
// through the snapshot's vault handle.
func (s *Snapshot) filesAt(ctx context.Context, p string) (notes, atts []File, warnings []Warning) {
	fsys, err := s.Files()
	if err != nil {
		return nil, nil, []Warning{{Path: p, Message: "unreadable: " + err.Error()}}
	}
	disk := p
	info, err := fsys.Lstat(disk)
	if errors.Is(err, fs.ErrNotExist) {
		if disk, info, err = findNFD(fsys, p); err != nil {
			return nil, nil, nil
		}
	}
	switch {
	case err != nil:
		return nil, nil, []Warning{{Path: p, Message: "unreadable: " + unwrapPathError(err).Error()}}
	case info.Mode()&fs.ModeSymlink != 0:
		if problem := fsys.symlinkProblem(disk); problem != "" {
			warnings = append(warnings, Warning{Path: p, Message: problem})
		}
		return nil, nil, warnings
	case info.IsDir():
		notes, atts, warnings, err = fsys.WalkFolder(ctx, disk)
		if err != nil {
			warnings = append(warnings, Warning{Path: p, Message: "unreadable: " + unwrapPathError(err).Error()})
		}
		return notes, atts, warnings
	case info.Mode().IsRegular():
		f, err := fsys.File(disk)
		if err != nil {
			return nil, nil, nil // gone or replaced since the Lstat: the next change set sees it
		}
		f.Path = p
		if IsNote(p) {
			return []File{f}, nil, nil
		}
		return nil, []File{f}, nil
	}
	return nil, nil, nil
}

// findNFD finds a file whose name differs from p's only in Unicode form
// (a name written in NFD on a file system that keeps forms apart), and
// returns its path as it is on disk.
func findNFD(fsys *FS, p string) (string, fs.FileInfo, error) {
	dir, name := path.Split(p)
	if isASCII(name) {
		return "", nil, fs.ErrNotExist
	}
	entries, err := fsys.ReadDir(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return "", nil, err
	}
	for _, e := range entries {
		if nfc(e.Name()) == name && e.Name() != name {
			disk := dir + e.Name()
			info, err := fsys.Lstat(disk)
			return disk, info, err
		}
	}
	return "", nil, fs.ErrNotExist
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// reread parses the scanned documents. A file whose content hash equals
// that of the note already at its path keeps the parsed note (with the
// new size and time), so an event that changed nothing costs no work
// downstream.
func (s *Snapshot) reread(ctx context.Context, files []File, opts Options) ([]*Note, []Warning) {
	parsed, warnings, _ := readAll(ctx, files, opts, func(f File) (*Note, []Warning) { return s.rereadNote(f, opts.MaxFileSize) })
	for i, n := range parsed {
		if IsPDF(n.Path) {
			parsed[i] = s.same(n)
		}
	}
	slices.SortFunc(parsed, func(a, b *Note) int { return strings.Compare(a.Path, b.Path) })
	return parsed, warnings
}

// rereadNote reads one markdown file, parsing it only when its content
// differs from the note at its path.
func (s *Snapshot) rereadNote(f File, maxSize int64) (*Note, []Warning) {
	i, ok := s.byExact[f.Path]
	if !ok || s.Notes[i].Kind != KindMarkdown {
		return ReadNote(f, maxSize)
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	if f.Size > maxSize {
		return ReadNote(f, maxSize) // the warning ReadNote gives
	}
	raw, err := readCapped(f, maxSize)
	if err != nil {
		return nil, []Warning{{Path: f.Path, Message: err.Error()}}
	}
	if HashBytes(raw) == s.Notes[i].Hash {
		return touched(s.Notes[i], int64(len(raw)), f), nil
	}
	return parseRaw(f, raw)
}

// same returns the old note at n's path instead of n when their content
// is the same (refreshing size and time).
func (s *Snapshot) same(n *Note) *Note {
	if i, ok := s.byExact[n.Path]; ok && s.Notes[i].Hash == n.Hash && s.Notes[i].Kind == n.Kind {
		return touched(s.Notes[i], n.Size, File{Path: n.Path, ModTime: n.ModTime})
	}
	return n
}

// touched is old with the size and time of f: the same note when they
// did not change, else a copy (old is shared with the old snapshot).
func touched(old *Note, size int64, f File) *Note {
	if old.Size == size && old.ModTime.Equal(f.ModTime) {
		return old
	}
	c := *old
	c.Size, c.ModTime = size, f.ModTime
	return &c
}

// mergeNotes is the old notes outside the scan plus the fresh ones, in
// path order, with each note's id in the old snapshot when its content is
// the same (-1 otherwise).
func (s *Snapshot) mergeNotes(sc scanned, fresh []*Note) ([]*Note, []int) {
	inScan := make(map[int]bool, len(sc.oldNotes))
	for _, i := range sc.oldNotes {
		inScan[i] = true
	}
	notes := make([]*Note, 0, len(s.Notes)-len(sc.oldNotes)+len(fresh))
	old := make([]int, 0, cap(notes))
	j := 0
	for i, n := range s.Notes {
		if inScan[i] {
			continue
		}
		for ; j < len(fresh) && fresh[j].Path < n.Path; j++ {
			notes, old = append(notes, fresh[j]), append(old, s.oldID(fresh[j]))
		}
		notes, old = append(notes, n), append(old, i)
	}
	for ; j < len(fresh); j++ {
		notes, old = append(notes, fresh[j]), append(old, s.oldID(fresh[j]))
	}
	return notes, old
}

// oldID is the id of the old note with n's content at n's path, or -1.
func (s *Snapshot) oldID(n *Note) int {
	if i, ok := s.byExact[n.Path]; ok && s.Notes[i].Hash == n.Hash && s.Notes[i].Kind == n.Kind {
		return i
	}
	return -1
}

func (s *Snapshot) mergeAttachments(sc scanned) []Attachment {
	inScan := make(map[int]bool, len(sc.oldAtts))
	for _, i := range sc.oldAtts {
		inScan[i] = true
	}
	atts := make([]Attachment, 0, len(s.Attachments)-len(sc.oldAtts)+len(sc.atts))
	for i, a := range s.Attachments {
		if !inScan[i] {
			atts = append(atts, a)
		}
	}
	for _, f := range sc.atts {
		atts = append(atts, Attachment{Path: f.Path, Size: f.Size, ModTime: f.ModTime})
	}
	slices.SortFunc(atts, func(a, b Attachment) int { return strings.Compare(a.Path, b.Path) })
	return atts
}

func sameAttachmentPaths(s *Snapshot, sc scanned) bool {
	if len(sc.oldAtts) != len(sc.atts) {
		return false
	}
	for k, i := range sc.oldAtts {
		if s.Attachments[i].Path != sc.atts[k].Path {
			return false
		}
	}
	return true
}

// mergeWarnings drops the old warnings about scanned paths and adds the
// new ones.
func (s *Snapshot) mergeWarnings(sc scanned, fresh []Warning) []Warning {
	out := make([]Warning, 0, len(s.Warnings)+len(fresh))
	for _, w := range s.Warnings {
		if !coveredBy(w.Path, sc.prefixes) {
			out = append(out, w)
		}
	}
	out = append(out, fresh...)
	slices.SortStableFunc(out, func(a, b Warning) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return out
}

func coveredBy(p string, prefixes []string) bool {
	for _, q := range prefixes {
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// relink resolves the links of new content, and again those links of
// unchanged notes whose target could mean a note or attachment that came
// or went, or an alias that changed. A note whose resolution changed is
// copied (the old one belongs to the old snapshot too) and listed in
// d.Relinked.
func (s *Snapshot) relink(old *Snapshot, d *Delta, sc scanned) {
	for _, i := range d.Added {
		n := s.Notes[i]
		for j := range n.Links {
			l := &n.Links[j]
			l.Kind, l.Resolved = s.ResolveLink(*l, n.Path)
		}
	}
	keys := changedKeys(old, s, d, sc)
	if len(keys) == 0 {
		return
	}
	for i, n := range s.Notes {
		if d.Old[i] < 0 || !linksAny(n, keys) {
			continue
		}
		var links []Link
		for j, l := range n.Links {
			k, r := s.ResolveLink(l, n.Path)
			if k == l.Kind && r == l.Resolved {
				continue
			}
			if links == nil {
				links = slices.Clone(n.Links)
			}
			links[j].Kind, links[j].Resolved = k, r
		}
		if links != nil {
			c := *n
			c.Links = links
			s.Notes[i] = &c
			d.Relinked = append(d.Relinked, i)
		}
	}
}

// changedKeys are the link keys (see linkKey) of notes and attachments
// that came or went and of aliases that changed: only links with one of
// these keys can resolve differently.
func changedKeys(old, cur *Snapshot, d *Delta, sc scanned) map[string]bool {
	keys := map[string]bool{}
	exists := func(s *Snapshot, p string) bool { _, ok := s.byExact[p]; return ok }
	aliases := func(s *Snapshot, p string) []string {
		if i, ok := s.byExact[p]; ok {
			return s.Notes[i].Aliases
		}
		return nil
	}
	look := func(p string) {
		if exists(old, p) != exists(cur, p) {
			keys[linkKey(p)] = true
		}
		a, b := aliases(old, p), aliases(cur, p)
		if !slices.Equal(a, b) {
			for _, x := range append(slices.Clone(a), b...) {
				keys[linkKey(x)] = true
			}
		}
	}
	for _, i := range d.Removed {
		look(old.Notes[i].Path)
	}
	for _, i := range d.Added {
		look(cur.Notes[i].Path)
	}
	for _, i := range sc.oldAtts {
		if _, ok := cur.attByPath[strings.ToLower(old.Attachments[i].Path)]; !ok {
			keys[linkKey(old.Attachments[i].Path)] = true
		}
	}
	for _, f := range sc.atts {
		if _, ok := old.attByPath[strings.ToLower(f.Path)]; !ok {
			keys[linkKey(f.Path)] = true
		}
	}
	return keys
}

// linkKey is the lower-case last element of a link target or a path,
// without ".md". A target can only resolve to a note or attachment whose
// name, file name or alias has the target's key.
func linkKey(t string) string {
	t = strings.ToLower(nfc(strings.TrimSpace(strings.ReplaceAll(t, `\`, "/"))))
	t = strings.TrimSuffix(t, "/")
	return strings.TrimSuffix(t[strings.LastIndexByte(t, '/')+1:], ".md")
}

// linksAny reports whether one of n's links has a key in keys.
func linksAny(n *Note, keys map[string]bool) bool {
	for _, l := range n.Links {
		if keys[linkKey(l.Target)] {
			return true
		}
	}
	return false
}

// Changed lists the vault-relative paths whose files on disk differ from
// the snapshot by size or modification time, appeared or disappeared: a
// stat walk, no file read (what a rescan hands to Update). Both sides are
// sorted by path, so they are compared in one merge, without a map.
func (s *Snapshot) Changed(ctx context.Context) ([]string, error) {
	fsys, err := s.Files()
	if err != nil {
		return nil, err
	}
	notes, atts, _, err := fsys.Walk(ctx)
	if err != nil {
		return nil, err
	}
	return s.ChangedFiles(notes, atts), nil
}

// ChangedFiles is [Snapshot.Changed] for files already walked (notes and
// attachments as [FS.Walk] returns them): the paths whose size or time
// differ from the snapshot's, that are new, or that are gone, sorted.
func (s *Snapshot) ChangedFiles(notes, atts []File) []string {
	md := make([]stat, 0, len(s.Notes))
	for _, n := range s.Notes {
		if n.Kind == KindMarkdown {
			md = append(md, stat{n.Path, n.Size, n.ModTime})
		}
	}
	out := changedStats(nil, notes, md)
	as := make([]stat, len(s.Attachments))
	for i, a := range s.Attachments {
		as[i] = stat{a.Path, a.Size, a.ModTime}
	}
	out = changedStats(out, atts, as)
	slices.Sort(out)
	return out
}

// stat is what a rescan compares of a file.
type stat struct {
	path string
	size int64
	mod  time.Time
}

// changedStats appends the paths that differ between files on disk and
// known, both sorted by path.
func changedStats(out []string, files []File, known []stat) []string {
	i, j := 0, 0
	for i < len(files) || j < len(known) {
		switch {
		case j == len(known) || i < len(files) && files[i].Path < known[j].path:
			out = append(out, files[i].Path) // new
			i++
		case i == len(files) || known[j].path < files[i].Path:
			out = append(out, known[j].path) // gone
			j++
		default:
			if files[i].Size != known[j].size || !files[i].ModTime.Equal(known[j].mod) {
				out = append(out, files[i].Path)
			}
			i++
			j++
		}
	}
	return out
}

// Under returns the ids of the notes at the vault-relative path p or, for
// a folder, under it.
func (s *Snapshot) Under(p string) []int { return s.notesUnder(cleanScanPath(p)) }
