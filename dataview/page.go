package dataview

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// conv turns a snapshot's notes into Dataview values. It is immutable and
// safe for concurrent use, so values it makes can be cached and shared.
type conv struct {
	snap *vault.Snapshot
	g    *graph.Graph
	loc  *time.Location // zone of dates written without one
}

// isPage reports whether a note is a Dataview page (markdown; PDFs are
// not).
func (c *conv) isPage(i int) bool { return c.snap.Notes[i].Kind != vault.KindPDF }

// resolveLink points a link at the note or attachment it names, seen from
// the note at from ("" = the vault root); unresolved links keep their text.
func (c *conv) resolveLink(l Link, from string) Link {
	if l.Path == "" {
		l.Path = from
		return l
	}
	if kind, p := c.snap.Resolve(l.Path, from); kind != vault.LinkUnresolved {
		l.Path = p
	}
	return l
}

// pageObj is a note as Dataview sees it: its frontmatter fields plus the
// implicit file object. Values are converted on access.
type pageObj struct {
	ev   *evaluator
	idx  int
	note *vault.Note
}

func (p *pageObj) Get(key string) (Value, bool) {
	if key == "file" {
		return &fileObj{page: p}, true
	}
	v, ok := p.note.Frontmatter[key]
	if !ok {
		return nil, false
	}
	return p.ev.fromYAML(v, p.note.Path), true
}

func (p *pageObj) Keys() []string {
	keys := make([]string, 0, len(p.note.Frontmatter)+1)
	for k := range p.note.Frontmatter {
		if k != "file" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, "file")
	slices.Sort(keys)
	return keys
}

// field is a page's field by name (see lookup); when a step runs over
// many pages it comes from the index's per-snapshot column.
func (p *pageObj) field(name string) Value {
	if name == "file" {
		return &fileObj{page: p}
	}
	ev := p.ev
	if ev.bulk {
		if col := ev.column(ev.fieldCols, "field:", name, func(c *conv, i int) Value { return c.noteField(i, name) }); col != nil {
			return col[p.idx]
		}
	}
	return ev.noteField(p.idx, name)
}

// noteField looks a frontmatter field of note i up by name (see lookup).
func (c *conv) noteField(i int, name string) Value {
	n := c.snap.Notes[i]
	if v, ok := n.Frontmatter[name]; ok {
		return c.fromYAML(v, n.Path)
	}
	want := canonicalName(name)
	var keys []string
	for k := range n.Frontmatter {
		if canonicalName(k) == want {
			keys = append(keys, k)
		}
	}
	return collect(keys, func(k string) Value { return c.fromYAML(n.Frontmatter[k], n.Path) })
}

// collect is the value of the keys matching a name: none → null, one → its
// value, several → the list of their values (as Dataview merges fields
// whose names normalise alike).
func collect(keys []string, get func(string) Value) Value {
	switch len(keys) {
	case 0:
		return nil
	case 1:
		return get(keys[0])
	}
	slices.Sort(keys)
	out := make([]Value, len(keys))
	for i, k := range keys {
		out[i] = get(k)
	}
	return out
}

// lookup finds a field of an object by name: the exact key first, else
// every key with the same Dataview-normalised name (lower case, spaces as
// '-', no punctuation), so Status, status and "Due Date"/due-date all
// match.
func lookup(o Object, name string) Value {
	if p, ok := o.(*pageObj); ok {
		return p.field(name)
	}
	if v, ok := o.Get(name); ok {
		return v
	}
	want := canonicalName(name)
	var keys []string
	for _, k := range o.Keys() {
		if canonicalName(k) == want {
			keys = append(keys, k)
		}
	}
	return collect(keys, func(k string) Value { v, _ := o.Get(k); return v })
}

// canonicalName is Dataview's normalised field name.
func canonicalName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-' || isEmoji(r):
		default:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte('-')
		}
		space = false
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String()
}

// fromYAML converts a decoded frontmatter value the way Dataview does:
// text that is wholly a date, a duration or a [[link]] becomes one.
func (c *conv) fromYAML(v any, from string) Value {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return c.fromText(x, from)
	case bool:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	case float32:
		return float64(x)
	case time.Time:
		return x.In(c.loc)
	case []any:
		out := make([]Value, len(x))
		for i, e := range x {
			out[i] = c.fromYAML(e, from)
		}
		return out
	case map[string]any:
		return &yamlObj{c: c, m: x, from: from}
	}
	return nil
}

func (c *conv) fromText(s, from string) Value {
	if s == "" {
		return s
	}
	if d, ok := parseDateString(s); ok {
		return d.in(c.loc)
	}
	if d, ok := parseDurationString(s); ok {
		return d
	}
	if l, ok := wholeLink(s); ok {
		return c.resolveLink(l, from)
	}
	return s
}

// wholeLink reads text that is exactly one [[link]] or ![[embed]].
func wholeLink(s string) (Link, bool) {
	embed := strings.HasPrefix(s, "!")
	inner, ok := strings.CutPrefix(strings.TrimPrefix(s, "!"), "[[")
	if !ok {
		return Link{}, false
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok || strings.ContainsAny(inner, "[]") {
		return Link{}, false
	}
	l := parseInnerLink(inner)
	l.Embed = embed
	return l, true
}

// yamlObj is a nested frontmatter map.
type yamlObj struct {
	c    *conv
	m    map[string]any
	from string
}

func (o *yamlObj) Get(key string) (Value, bool) {
	v, ok := o.m[key]
	if !ok {
		return nil, false
	}
	return o.c.fromYAML(v, o.from), true
}

func (o *yamlObj) Keys() []string {
	keys := make([]string, 0, len(o.m))
	for k := range o.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// valueObj is an object computed by the query (object + object).
type valueObj map[string]Value

func (o valueObj) Get(key string) (Value, bool) {
	v, ok := o[key]
	return v, ok
}

func (o valueObj) Keys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fileObj is the implicit file.* object of a page.
type fileObj struct{ page *pageObj }

// fileKeys are the file.* fields this package answers (file.day only when
// the note has a date).
var fileKeys = []string{"aliases", "etags", "ext", "folder", "inlinks", "link", "mday", "mtime", "name", "outlinks", "path", "size", "tags"}

func (f *fileObj) Keys() []string {
	if _, ok := f.page.ev.fileField(f.page.idx, "day"); ok {
		keys := append(slices.Clone(fileKeys), "day")
		slices.Sort(keys)
		return keys
	}
	return fileKeys
}

func (f *fileObj) Get(key string) (Value, bool) {
	ev := f.page.ev
	if ev.bulk && (key == "day" || slices.Contains(fileKeys, key)) {
		build := func(c *conv, i int) Value { v, _ := c.fileField(i, key); return v }
		if col := ev.column(ev.fileCols, "file:", key, build); col != nil {
			v := col[f.page.idx]
			return v, v != nil || key != "day"
		}
	}
	return ev.fileField(f.page.idx, key)
}

// fileField computes file.<key> of note i.
func (c *conv) fileField(i int, key string) (Value, bool) {
	n := c.snap.Notes[i]
	switch key {
	case "name":
		return n.Name(), true
	case "folder":
		return n.Folder(), true
	case "path":
		return n.Path, true
	case "ext":
		return strings.TrimPrefix(path.Ext(n.Path), "."), true
	case "link":
		return Link{Path: n.Path}, true
	case "size":
		return float64(n.Size), true
	case "mtime":
		return n.ModTime.In(c.loc), true
	case "mday":
		y, m, d := n.ModTime.In(c.loc).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, c.loc), true
	case "tags":
		return tagList(n, true), true
	case "etags":
		return tagList(n, false), true
	case "aliases":
		return stringList(n.Aliases), true
	case "inlinks":
		return c.inlinks(i), true
	case "outlinks":
		return outlinks(n), true
	case "day":
		d, ok := c.day(n)
		if !ok {
			return nil, false
		}
		return d, true
	}
	return nil, false
}

func stringList(s []string) []Value {
	out := make([]Value, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

// tagList lists the note's tags with '#'; expanded, each nested tag also
// gives its parents (#a/b/c → #a/b/c, #a/b, #a), as Dataview's file.tags.
func tagList(n *vault.Note, expand bool) []Value {
	out := []Value{}
	seen := map[string]bool{}
	add := func(t string) {
		if k := strings.ToLower(t); !seen[k] {
			seen[k] = true
			out = append(out, "#"+t)
		}
	}
	for _, t := range n.Tags {
		add(t)
		for expand && strings.Contains(t, "/") {
			t = t[:strings.LastIndexByte(t, '/')]
			add(t)
		}
	}
	return out
}

// inlinks are the notes linking to note i (each once), as links.
func (c *conv) inlinks(i int) []Value {
	out := []Value{}
	last := -1
	for _, e := range c.g.Backlinks(i) {
		if e.From != last && c.isPage(e.From) {
			out = append(out, Link{Path: c.snap.Notes[e.From].Path})
		}
		last = e.From
	}
	return out
}

// outlinks are the note's links in document order (embeds included), each
// to its resolved path, or to the text written when it resolves nowhere.
func outlinks(n *vault.Note) []Value {
	out := make([]Value, 0, len(n.Links))
	for _, l := range n.Links {
		p := l.Resolved
		if l.Kind == vault.LinkUnresolved || p == "" {
			p = l.Target
		}
		if p == "" {
			continue
		}
		link := Link{Path: p, Subpath: l.Heading, Embed: l.Embed}
		if l.Block != "" {
			link.Subpath, link.Block = l.Block, true
		}
		out = append(out, link)
	}
	return out
}

var (
	dashedDate = regexp.MustCompile(`(\d{4})-(\d{2})-(\d{2})`)
	plainDate  = regexp.MustCompile(`(\d{4})(\d{2})(\d{2})`)
)

// day is Dataview's file.day: a date/day field holding a date, else a
// YYYY-MM-DD or YYYYMMDD date in the file name.
func (c *conv) day(n *vault.Note) (time.Time, bool) {
	keys := make([]string, 0, 2)
	for k := range n.Frontmatter {
		if lk := strings.ToLower(k); lk == "date" || lk == "day" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := c.fromYAML(n.Frontmatter[k], n.Path).(type) {
		case time.Time:
			return v, true
		case []Value:
			if len(v) > 0 {
				if d, ok := v[0].(time.Time); ok {
					return d, true
				}
			}
		case Link:
			for _, s := range []string{v.Path, v.Subpath, v.Display} {
				if d, ok := c.extractDate(s); ok {
					return d, true
				}
			}
		}
	}
	return c.extractDate(n.Name())
}

func (c *conv) extractDate(s string) (time.Time, bool) {
	m := dashedDate.FindStringSubmatch(s)
	if m == nil {
		m = plainDate.FindStringSubmatch(s)
	}
	if m == nil {
		return time.Time{}, false
	}
	d := parsedDate{day: 1}
	d.year, _ = atoi(m[1])
	d.month, _ = atoi(m[2])
	d.day, _ = atoi(m[3])
	if !validDate(d) {
		return time.Time{}, false
	}
	return d.in(c.loc), true
}

func atoi(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}
