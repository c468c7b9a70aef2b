package edit

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// LinkChange is one link rewritten by a rename.
type LinkChange struct {
	// Line is the 1-based file line; Column the 1-based byte offset of
	// the link in the original line.
	Line, Column int
	// Before and After are the link as written and as rewritten.
	Before, After string
	// Target is the vault-relative path the rewritten link points to: the
	// new path, or, for a link to another note that the rename would
	// otherwise have captured or broken, that note's path.
	Target string
}

// FileChange is a note whose links a rename rewrites.
type FileChange struct {
	// Path is where the note is after the rename; OldPath where it is now
	// (they differ only for the renamed note itself).
	Path, OldPath string
	Changes       []LinkChange
	before, after []byte
}

// RenamePlan is everything a rename will do; nothing is touched until
// Apply.
type RenamePlan struct {
	From, To  string
	Overwrite bool
	// Files are sorted by Path.
	Files []FileChange
	// Warnings are links that could not be rewritten and files that could
	// not be read.
	Warnings []string
	root     string
}

// Total is the number of links the plan rewrites.
func (p *RenamePlan) Total() int {
	n := 0
	for _, f := range p.Files {
		n += len(f.Changes)
	}
	return n
}

// forbiddenInName breaks [[wikilinks]] or markdown links when it appears
// in a file name.
const forbiddenInName = "#|[]^"

// PlanRename plans moving the note at from (a note of snap) to to (a clean
// note path, see NotePath) and rewriting the links the move would break,
// reading each affected note live from disk:
//
//   - every [[link]], ![[embed]] and [text](path.md) that resolved to from
//     is rewritten to resolve to to, keeping its "#heading", "#^block",
//     "|alias", '!' and the writer's style: a bare name stays bare with the
//     new name unless another note has that name after the move (then the
//     shortest path suffix only the renamed note matches), a vault path
//     gets the new vault path, a relative "./" or "../" link gets the new
//     relative path, a markdown link relative to its note's folder stays
//     folder-relative, ".md" is kept or omitted as written, and a markdown
//     destination stays URL-encoded or in <…> as written;
//   - a link by alias that still resolves is left alone;
//   - links in the renamed note itself that the move would break (relative
//     links, same-folder name matches) are rewritten to keep their target;
//   - a link to another note that the new name would capture (a duplicate
//     basename that now wins a tie-break) is rewritten to the shortest
//     path that keeps its target.
//
// Links in frontmatter values (property links) are rewritten alike, in
// place, so a quoted string stays quoted and a list item a list item; the
// rewritten frontmatter is decoded again and must hold the same values
// but for those links, else the note is left as it is with a warning (as
// it is when a link to rewrite is written with a YAML escape).
//
// Links in code blocks and inline code are never touched (only the
// positions where the parser sees links are rewritten). Every rewritten
// link is re-parsed and checked to resolve as intended; one that cannot
// be becomes a warning.
func PlanRename(snap *vault.Snapshot, from, to string, overwrite bool) (*RenamePlan, error) {
	n := snap.Note(from)
	if n == nil || n.Kind != vault.KindMarkdown {
		return nil, fmt.Errorf("note %q: %w", from, fs.ErrNotExist)
	}
	from = n.Path
	to = norm.NFC.String(to)
	if to == from {
		return nil, errors.New("new_path is the note's current path")
	}
	if strings.ContainsAny(path.Base(to), forbiddenInName) {
		return nil, fmt.Errorf("%w: %q: a note name with any of %s breaks links", ErrRefused, to, forbiddenInName)
	}
	if err := checkDestination(snap.Root, from, to, overwrite); err != nil {
		return nil, err
	}
	moved, err := snap.Moved(from, to)
	if err != nil {
		return nil, err
	}
	p := &RenamePlan{From: from, To: to, Overwrite: overwrite, root: snap.Root}
	r := rewriter{old: snap, moved: moved, from: from, to: to, newName: lowerName(path.Base(to))}
	for _, src := range r.sources(overwrite) {
		raw, err := Read(snap.Root, src)
		if err != nil {
			if src == from {
				return nil, err
			}
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: not read (%v); its links were not rewritten", src, err))
			continue
		}
		fc, warnings := r.file(src, raw)
		p.Warnings = append(p.Warnings, warnings...)
		if len(fc.Changes) > 0 {
			p.Files = append(p.Files, fc)
		}
	}
	slices.SortFunc(p.Files, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return p, nil
}

// checkDestination refuses an existing destination (unless overwrite, or
// it is the same file under another case) before anything is planned.
func checkDestination(root, from, to string, overwrite bool) error {
	fsys, err := vault.OpenFS(root)
	if err != nil {
		return err
	}
	defer fsys.Close()
	_, srcInfo, err := locateSource(fsys, from)
	if err != nil {
		return err
	}
	dst, err := locate(fsys, to, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the folder will be created
	}
	if err != nil {
		return err
	}
	return refuseExisting(fsys, dst.disk, to, srcInfo, overwrite)
}

// Applied reports what Apply did.
type Applied struct {
	// Moved: the note is at its new path.
	Moved bool
	// Updated lists the files rewritten (paths after the rename).
	Updated []string
	// Failed maps files that could not be rewritten to why.
	Failed map[string]string
}

// Apply moves the note (one atomic rename), then rewrites each affected
// file atomically, one at a time, each only if it has not changed since
// it was planned. A failed move changes nothing and is returned as the
// error; a failed rewrite is recorded in Failed and the others still run,
// so Applied always says exactly what was done.
func (p *RenamePlan) Apply() (*Applied, error) {
	a := &Applied{Updated: []string{}, Failed: map[string]string{}}
	if err := Move(p.root, p.From, p.To, p.Overwrite); err != nil {
		return a, err
	}
	a.Moved = true
	for _, f := range p.Files {
		rel := f.OldPath
		if rel == p.From {
			rel = p.To
		}
		if err := Replace(p.root, rel, f.before, f.after); err != nil {
			a.Failed[f.Path] = err.Error()
			continue
		}
		a.Updated = append(a.Updated, f.Path)
	}
	return a, nil
}

// rewriter holds the two views of the vault a rename compares.
type rewriter struct {
	old, moved *vault.Snapshot
	from, to   string
	newName    string // lower-case name of the new path
}

// sources lists the notes whose links may need rewriting: those linking
// to the renamed note, the note itself, and those with a link whose name
// equals the new name (which the rename might capture).
func (r rewriter) sources(overwrite bool) []string {
	var out []string
	for _, n := range r.old.Notes {
		if n.Kind != vault.KindMarkdown {
			continue
		}
		if overwrite && n.Path != r.from && strings.EqualFold(n.Path, r.to) {
			continue // replaced by the renamed note
		}
		if n.Path == r.from || slices.ContainsFunc(n.Links, r.affects) {
			out = append(out, n.Path)
		}
	}
	return out
}

func (r rewriter) affects(l vault.Link) bool {
	return (l.Kind == vault.LinkNote && l.Resolved == r.from) || (l.Target != "" && lowerName(l.Target) == r.newName)
}

// lowerName is the lower-case, NFC name of a link target or path: its
// last segment without ".md".
func lowerName(t string) string {
	t = strings.ReplaceAll(strings.TrimSpace(t), `\`, "/")
	t = t[strings.LastIndexByte(t, '/')+1:]
	t = strings.ToLower(norm.NFC.String(t))
	return strings.TrimSuffix(t, ".md")
}

// file plans the rewrites of one note (src is its current path).
func (r rewriter) file(src string, raw []byte) (FileChange, []string) {
	fc := FileChange{Path: src, OldPath: src, before: raw}
	if src == r.from {
		fc.Path = r.to
	}
	note, _ := vault.Parse(src, raw)
	text := string(raw)
	propSpans, unplaced := vault.PropertyLinkSpans(text)
	spansAt := map[int][]vault.LinkSpan{}
	for _, sp := range propSpans {
		spansAt[sp.Line] = append(spansAt[sp.Line], sp)
	}
	for _, l := range note.Links {
		if l.Property == "" {
			spansAt[l.Line] = nil // found on the line below
		}
	}
	var warnings []string
	for _, l := range unplaced {
		if r.changes(src, l) {
			return FileChange{}, []string{fmt.Sprintf("%s: property %q: %s is written in a YAML form that cannot be rewritten safely (an escape or a line break inside the link); the note was left as it is", fc.Path, l.Property, l.Raw)}
		}
	}
	lines := splitLines(text)
	var propChanges []LinkChange
	for no := 1; no <= len(lines); no++ {
		spans, ok := spansAt[no]
		if !ok {
			continue
		}
		body := stripEOL(lines[no-1])
		newBody := body
		if no >= note.BodyLine {
			spans = vault.LinkSpans(body, no)
		}
		for i := len(spans) - 1; i >= 0; i-- { // right to left: offsets stay valid
			sp := spans[i]
			after, target, warn := r.link(src, sp)
			if warn != "" {
				warnings = append(warnings, fmt.Sprintf("%s line %d: %s", fc.Path, no, warn))
			}
			if after == "" || after == sp.Raw {
				continue
			}
			newBody = newBody[:sp.Start] + after + newBody[sp.End:]
			c := LinkChange{Line: no, Column: sp.Start + 1, Before: sp.Raw, After: after, Target: target}
			fc.Changes = append(fc.Changes, c)
			if no < note.BodyLine {
				propChanges = append(propChanges, c)
			}
		}
		lines[no-1] = newBody + lines[no-1][len(body):]
	}
	slices.SortFunc(fc.Changes, func(a, b LinkChange) int { return cmp.Or(a.Line-b.Line, a.Column-b.Column) })
	fc.after = []byte(strings.Join(lines, ""))
	if len(propChanges) > 0 {
		if why := checkProperties(note, fc.after, propChanges); why != "" {
			return FileChange{}, append(warnings, fmt.Sprintf("%s: its property links cannot be rewritten safely (%s); the note was left as it is", fc.Path, why))
		}
	}
	return fc, warnings
}

// changes reports whether a link would have to be rewritten.
func (r rewriter) changes(src string, l vault.Link) bool {
	spans := vault.LinkSpans(l.Raw, l.Line)
	if len(spans) != 1 {
		return true
	}
	after, _, warn := r.link(src, spans[0])
	return warn != "" || (after != "" && after != l.Raw)
}

// checkProperties verifies the frontmatter of a rewritten note: it must
// still be valid YAML, every value must be as before except for the
// rewritten links, and those must read as rewritten. It returns why not,
// or "".
func checkProperties(old *vault.Note, after []byte, changes []LinkChange) string {
	n, _ := vault.Parse(old.Path, after)
	if n.Frontmatter == nil {
		return "the YAML would no longer parse"
	}
	if !reflect.DeepEqual(maskLinks(old.Frontmatter), maskLinks(n.Frontmatter)) {
		return "a value would change beyond its links"
	}
	want := map[string]int{}
	for _, l := range old.Links {
		if l.Property != "" {
			want[norm.NFC.String(l.Raw)]++
		}
	}
	for _, c := range changes {
		want[norm.NFC.String(c.Before)]--
		want[norm.NFC.String(c.After)]++
	}
	for _, l := range n.Links {
		if l.Property != "" {
			want[norm.NFC.String(l.Raw)]--
		}
	}
	for _, raw := range slices.Sorted(maps.Keys(want)) {
		if want[raw] != 0 {
			return fmt.Sprintf("%s would not read as written", raw)
		}
	}
	return ""
}

// wikiRE matches a [[wikilink]] for maskLinks.
var wikiRE = regexp.MustCompile(`\[\[[^\]]*\]\]`)

// maskLinks copies a frontmatter value with every [[…]] emptied, so that
// two values compare equal when only their links differ.
func maskLinks(v any) any {
	switch x := v.(type) {
	case string:
		return wikiRE.ReplaceAllString(x, "[[]]")
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskLinks(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = maskLinks(e)
		}
		return out
	}
	return v
}

// link returns the rewritten text of one link ("" or sp.Raw: unchanged)
// and the path it points to, or a warning.
func (r rewriter) link(src string, sp vault.LinkSpan) (after, target, warning string) {
	if sp.Target == "" {
		return "", "", "" // [[#heading]] points at its own note wherever it is
	}
	kind, was := r.old.ResolveLink(sp.Link, src)
	if kind == vault.LinkUnresolved {
		return "", "", ""
	}
	toRenamed := kind == vault.LinkNote && was == r.from
	if !toRenamed && src != r.from && lowerName(sp.Target) != r.newName {
		return "", "", ""
	}
	l := linkCtx{r: r, sp: sp, kind: kind, src: src, newSrc: src, want: was, toRenamed: toRenamed}
	if src == r.from {
		l.newSrc = r.to
	}
	if toRenamed {
		l.want = r.to
	}
	if l.keep() {
		return "", "", ""
	}
	for _, strict := range []bool{true, false} {
		for _, c := range l.candidates() {
			if (strict && !c.exact && r.moved.MatchCount(c.target) != 1) || !l.resolves(c.target) {
				continue
			}
			if text, ok := l.render(c.target); ok {
				return text, l.want, ""
			}
		}
	}
	return "", "", fmt.Sprintf("%s could not be rewritten to keep pointing at %s", sp.Raw, l.want)
}

// linkCtx is one link being rewritten.
type linkCtx struct {
	r         rewriter
	sp        vault.LinkSpan
	kind      vault.LinkKind
	src       string // the note holding the link, now
	newSrc    string // and after the rename
	want      string // where the link must point after the rename
	toRenamed bool
}

// candidate is a possible new target; exact ones cannot be ambiguous.
type candidate struct {
	target string
	exact  bool
}

// resolves reports whether target, in this link, points at want after
// the rename.
func (l linkCtx) resolves(target string) bool {
	link := l.sp.Link
	link.Target = target
	k, p := l.r.moved.ResolveLink(link, l.newSrc)
	return k == l.kind && p == l.want
}

// keep reports whether the link can stay as written: it still points at
// its target and, for a link to the renamed note by name or partial path,
// that name is not shared with another note.
func (l linkCtx) keep() bool {
	if !l.resolves(l.sp.Target) {
		return false
	}
	if !l.toRenamed {
		return true
	}
	s := l.style()
	return s == styleRelative || s == styleFolder || s == styleVaultPath || l.r.moved.MatchCount(l.sp.Target) == 1
}

// Link styles, as the writer wrote the link.
const (
	styleRelative  = iota // ./x or ../x
	styleFolder           // a markdown link relative to its note's folder
	styleVaultPath        // the full vault path
	styleSuffix           // a partial path (Folder/Name)
	styleName             // the bare name
	styleAlias            // an alias (or anything else that resolved)
)

func (l linkCtx) style() int {
	t := strings.ReplaceAll(strings.TrimSpace(l.sp.Target), `\`, "/")
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		return styleRelative
	}
	t = strings.TrimPrefix(t, "/")
	if dir := folderOf(l.src); l.sp.Markdown && dir != "" && !strings.HasPrefix(l.sp.Target, "/") {
		if k, p := l.r.old.Exact(path.Join(dir, t)); k == l.kind && p == l.wasTarget() {
			return styleFolder
		}
	}
	if strings.Contains(t, "/") {
		if k, p := l.r.old.Exact(t); k == l.kind && p == l.wasTarget() {
			return styleVaultPath
		}
		return styleSuffix
	}
	if lowerName(t) == l.wasName() {
		return styleName
	}
	return styleAlias
}

// wasTarget is the path the link resolved to before the rename.
func (l linkCtx) wasTarget() string {
	if l.toRenamed {
		return l.r.from
	}
	return l.want
}

func (l linkCtx) wasName() string {
	if l.kind == vault.LinkAttachment {
		return strings.ToLower(norm.NFC.String(path.Base(l.wasTarget())))
	}
	return lowerName(l.wasTarget())
}

// candidates lists new targets in order of preference for the link's
// style; later ones are fallbacks that always resolve.
func (l linkCtx) candidates() []candidate {
	t := strings.TrimSpace(l.sp.Target)
	keepExt := l.kind == vault.LinkNote && strings.HasSuffix(strings.ToLower(t), ".md")
	asWritten := func(p string) string {
		if l.kind == vault.LinkNote && !keepExt {
			return p[:len(p)-len(".md")]
		}
		return p
	}
	slash := ""
	if strings.HasPrefix(strings.ReplaceAll(t, `\`, "/"), "/") {
		slash = "/"
	}
	dir := folderOf(l.newSrc)
	rel := asWritten(relTo(dir, l.want))
	dotRel := rel
	if !strings.HasPrefix(dotRel, "../") {
		dotRel = "./" + dotRel
	}
	full := asWritten(l.want)
	vaultPath := candidate{slash + full, strings.Contains(full, "/")}
	relative := candidate{dotRel, true}
	folder := candidate{rel, dir != ""}
	segs := strings.Split(full, "/")
	suffixes := func(minDepth int) []candidate {
		var out []candidate
		for k := max(1, minDepth); k < len(segs); k++ {
			out = append(out, candidate{strings.Join(segs[len(segs)-k:], "/"), false})
		}
		return out
	}
	var out []candidate
	switch l.style() {
	case styleRelative:
		out = []candidate{relative, vaultPath}
	case styleFolder:
		out = []candidate{folder, vaultPath, relative}
	case styleVaultPath:
		out = []candidate{vaultPath, relative}
	case styleSuffix:
		depth := strings.Count(strings.Trim(strings.ReplaceAll(t, `\`, "/"), "/"), "/") + 1
		out = append(suffixes(depth), vaultPath, relative)
	default:
		out = append(suffixes(1), vaultPath, relative)
	}
	if l.sp.Markdown {
		out = append(out, folder)
	}
	return out
}

// render rewrites the link's raw text with a new target, then re-parses
// it to check that only the target changed and that it resolves.
func (l linkCtx) render(target string) (string, bool) {
	sp := l.sp
	raw := sp.Raw
	ts, te := sp.TargetStart-sp.Start, sp.TargetEnd-sp.Start
	written := target
	if sp.Markdown && !sp.Angle {
		written = encodeDest(target, strings.Contains(raw[ts:te], "%"))
	}
	text := raw[:ts] + written + raw[te:]
	spans := vault.LinkSpans(text, sp.Line)
	if len(spans) != 1 || spans[0].Start != 0 || spans[0].End != len(text) {
		return "", false
	}
	got := spans[0].Link
	if got.Heading != sp.Heading || got.Block != sp.Block || got.Alias != sp.Alias || got.Embed != sp.Embed || got.Markdown != sp.Markdown {
		return "", false
	}
	k, p := l.r.moved.ResolveLink(got, l.newSrc)
	return text, k == l.kind && p == l.want
}

// encodeDest writes a markdown link destination: every byte URL-encoded
// per segment when the original was, else only what would break the link
// (space, parentheses, '<', '>', '%', '#').
func encodeDest(p string, encoded bool) string {
	if encoded {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		return strings.Join(segs, "/")
	}
	return strings.NewReplacer("%", "%25", " ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "#", "%23").Replace(p)
}

// relTo is the relative path from folder dir ("" = vault root) to p.
func relTo(dir, p string) string {
	var from []string
	if dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(p, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	return strings.Repeat("../", len(from)-i) + strings.Join(to[i:], "/")
}

func folderOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
