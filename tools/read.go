package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/edit"
	"github.com/enquire-mcp/enquire-mcp/obsidian"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ReadNoteInput names a note by path or by title.
type ReadNoteInput struct {
	Path     string `json:"path,omitempty" jsonschema:"Vault-relative path, e.g. Projects/Plan.md (.md optional)."`
	Title    string `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]; when no note has that name, today, yesterday, tomorrow and daily (= today) name daily notes, and this/last/next week, month, quarter or year (or weekly, monthly, quarterly, yearly) name periodic notes, found where the vault's Daily notes and Periodic Notes settings put them."`
	Format   string `json:"format,omitempty" jsonschema:"full (default): body and links; map: an outline without the body: headings with section sizes, frontmatter keys, link, embed and tag counts."`
	Section  string `json:"section,omitempty" jsonschema:"Only this section: a heading's text or its path under parent headings (Heading/Sub), case-insensitive; from the heading to the next heading of the same or a higher level. Headings and links are then those of the section; frontmatter and tags stay the note's."`
	Offset   int    `json:"offset,omitempty" jsonschema:"Byte offset in the body (the section's text with section) to start at: the next_offset of the previous page."`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"Most body bytes to return (1024-4194304, default 262144); a longer body is cut at a line break and truncated is true."`
}

// ReadNoteOutput is a parsed note.
type ReadNoteOutput struct {
	Path        string          `json:"path"`
	Title       string          `json:"title"`
	Frontmatter map[string]any  `json:"frontmatter,omitzero" jsonschema:"Decoded YAML frontmatter (full format)."`
	Tags        []string        `json:"tags"`
	Aliases     []string        `json:"aliases"`
	Headings    []vault.Heading `json:"headings"`
	Links       []LinkInfo      `json:"links,omitzero" jsonschema:"Outbound links in document order, with their resolution (full format; with section, those inside it)."`
	Body        string          `json:"body" jsonschema:"Text after the frontmatter; with section, the section's text; empty in the map format."`
	Size        int64           `json:"size"`
	Modified    string          `json:"modified" jsonschema:"Last modification time, RFC 3339."`
	AgeDays     int             `json:"age_days"`
	Format      string          `json:"format" jsonschema:"full or map."`
	Stale       string          `json:"stale,omitempty" jsonschema:"Set when the file cannot be read now (deleted, grown past the size cap, unreadable) and this is the copy from the last load: says why."`
	Etag        string          `json:"etag"`
	// Paging of the body (full format).
	Offset     int  `json:"offset,omitempty" jsonschema:"Byte offset in the body where this page starts."`
	Truncated  bool `json:"truncated" jsonschema:"The body continues past this page: call again with offset = next_offset. Headings and links of a page are those of its lines."`
	NextOffset int  `json:"next_offset,omitempty" jsonschema:"Offset of the next page when truncated."`
	// Section fields, when a section was asked for.
	Section   string `json:"section,omitempty" jsonschema:"The section returned: its heading path."`
	LineStart int    `json:"line_start,omitempty" jsonschema:"First file line of the section (its heading), 1-based."`
	LineEnd   int    `json:"line_end,omitempty" jsonschema:"Last file line of the section."`
	// Map fields, in the map format only.
	FrontmatterKeys []string      `json:"frontmatter_keys,omitzero" jsonschema:"Frontmatter keys in sorted order (map format)."`
	Sections        []SectionInfo `json:"sections,omitzero" jsonschema:"Every heading with the size of its section (map format)."`
	WikilinksCount  *int          `json:"wikilinks_count,omitempty" jsonschema:"Outbound links that are not embeds: wikilinks and markdown links (map format)."`
	EmbedsCount     *int          `json:"embeds_count,omitempty" jsonschema:"Embeds (map format)."`
	TagsCount       *int          `json:"tags_count,omitempty" jsonschema:"Distinct tags (map format)."`
}

// LinkInfo is one outbound link.
type LinkInfo struct {
	Raw      string `json:"raw"`
	Target   string `json:"target"`
	Heading  string `json:"heading,omitempty"`
	Block    string `json:"block,omitempty"`
	Alias    string `json:"alias,omitempty"`
	Embed    bool   `json:"embed"`
	Line     int    `json:"line" jsonschema:"1-based file line."`
	Property string `json:"property,omitempty" jsonschema:"The frontmatter key whose value holds the link (a link in a property; line is then a frontmatter line)."`
	Status   string `json:"status" jsonschema:"note, attachment or unresolved."`
	Resolved string `json:"resolved,omitempty" jsonschema:"Vault-relative path the link resolves to."`
}

// linkInfo describes a resolved link.
func linkInfo(l vault.Link) LinkInfo {
	return LinkInfo{Raw: l.Raw, Target: l.Target, Heading: l.Heading, Block: l.Block,
		Alias: l.Alias, Embed: l.Embed, Line: l.Line, Property: l.Property, Status: string(l.Kind), Resolved: l.Resolved}
}

// errNotFound is the one message for a missing note and for a path that
// escapes the vault, so probing reveals nothing outside it.
func errNotFound(ref string, suggestions []string) error {
	msg := "note not found: " + quote(ref)
	if len(suggestions) > 0 {
		msg += "; did you mean: " + strings.Join(suggestions, ", ")
	}
	return errors.New(msg)
}

// openNote finds a note by path or title and returns it as on disk now,
// with the file's text (see currentNote). A path the snapshot does not
// know is looked for on disk (a note created since the load).
func openNote(snap *vault.Snapshot, p, title string) (*vault.Note, string, error) {
	n, raw, _, err := openNoteStale(snap, p, title)
	return n, raw, err
}

// openNoteStale is openNote that also says why it served the snapshot's
// copy of the note (see currentNote).
func openNoteStale(snap *vault.Snapshot, p, title string) (n *vault.Note, raw, stale string, err error) {
	ref, rel := p, ""
	switch {
	case p != "" && title != "":
		return nil, "", "", errors.New("give path or title, not both")
	case p != "":
		clean, ok := vault.CleanRelPath(p)
		if !ok {
			return nil, "", "", errNotFound(p, nil)
		}
		rel = clean + ifMissing(clean, ".md")
		if n := snap.Note(clean); n != nil {
			rel = n.Path
		}
	case title != "":
		ref = title
		if n := snap.Lookup(title); n != nil {
			rel = n.Path
		}
	default:
		return nil, "", "", errors.New("give path or title")
	}
	if n, raw, stale := currentNoteStale(snap, rel); n != nil {
		return n, raw, stale, nil
	}
	if err := tooLarge(snap, rel, title); err != nil {
		return nil, "", "", err
	}
	return nil, "", "", errNotFound(ref, snap.Suggest(ref, 5))
}

// currentNote is the note at rel as its file reads now, with the file's
// text; when the file cannot be read, the snapshot's copy and "". nil when
// neither exists.
func currentNote(snap *vault.Snapshot, rel string) (*vault.Note, string) {
	n, raw, _ := currentNoteStale(snap, rel)
	return n, raw
}

// currentNoteStale is currentNote that also says why it served the
// snapshot's copy of a markdown note ("" when the file was read now): a
// reader must not take the copy from the last load for the file as it is.
// A note the privacy rules hide is answered as missing.
func currentNoteStale(snap *vault.Snapshot, rel string) (*vault.Note, string, string) {
	if rel == "" || snap.Hides(rel) {
		return nil, "", "" // hidden by the privacy rules: answered as missing
	}
	n, raw, hidden, err := readLive(snap, rel)
	switch {
	case hidden:
		return nil, "", "" // became private since the snapshot was loaded
	case n != nil:
		return n, raw, ""
	}
	old := snap.Note(rel)
	if old == nil || err == nil {
		return old, "", ""
	}
	const copy = "; this is the copy from the last load"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return old, "", "deleted on disk" + copy
	case errors.Is(err, vault.ErrTooLarge):
		return old, "", fmt.Sprintf("over the %d-byte size cap on disk now%s", vault.DefaultMaxFileSize, copy)
	}
	return old, "", fmt.Sprintf("unreadable on disk now (%v)%s", err, copy)
}

func ifMissing(p, ext string) string {
	if strings.EqualFold(path.Ext(p), ext) {
		return ""
	}
	return ext
}

// readLive parses the note file at a vault-relative path if it is a
// markdown note inside the vault, reached without symlinks, regular and
// within the size limit (a file named in NFD on disk is found too). It is
// read through the snapshot's vault handle, so a folder swapped for a
// symlink meanwhile cannot make it read a file outside the vault. hidden
// reports a file the privacy rules hide (its frontmatter marks it private
// now). A nil note with a nil error: not a markdown path.
func readLive(snap *vault.Snapshot, rel string) (n *vault.Note, text string, hidden bool, err error) {
	if !vault.IsNote(rel) {
		return nil, "", false, nil
	}
	fsys, err := snap.Files()
	if err != nil {
		return nil, "", false, err
	}
	raw, info, err := edit.ReadFileFS(fsys, rel, vault.DefaultMaxFileSize)
	if err != nil {
		return nil, "", false, err
	}
	if n := snap.Note(rel); n != nil {
		rel = n.Path // keep the snapshot's spelling of the path
	}
	n, _ = vault.Parse(rel, raw)
	if snap.HidesNote(n) {
		return nil, "", true, nil
	}
	n.ModTime, n.Hash = info.ModTime(), vault.HashBytes(raw)
	return n, string(raw), false, nil
}

// Formats of obsidian_read_note.
const (
	formatFull = "full"
	formatMap  = "map"
)

// renderNote renders a note (or one of its sections) in a format.
func renderNote(e *search.Engine, n *vault.Note, format, section string) (ReadNoteOutput, error) {
	out := ReadNoteOutput{
		Path: n.Path, Title: n.Title, Tags: nonNil(n.Tags), Aliases: nonNil(n.Aliases),
		Headings: nonNil(n.Headings), Body: n.Body, Size: n.Size, Format: format, Etag: n.Hash,
		Modified: n.ModTime.UTC().Format(time.RFC3339), AgeDays: ageDays(n.ModTime, e.Now()),
	}
	var secs []noteSection
	if section != "" || format == formatMap {
		secs = noteSections(n)
	}
	from, to := 0, math.MaxInt
	if section != "" {
		sec, err := findSection(n, secs, section)
		if err != nil {
			return ReadNoteOutput{}, err
		}
		from, to = sec.Line, sec.LineEnd
		out.Section, out.LineStart, out.LineEnd, out.Body = sec.Path, sec.Line, sec.LineEnd, sec.text
		out.Headings = slices.DeleteFunc(slices.Clone(out.Headings), func(h vault.Heading) bool { return !inLines(h.Line, from, to) })
	}
	links := slices.DeleteFunc(slices.Clone(n.Links), func(l vault.Link) bool { return !inLines(l.Line, from, to) })
	if format == formatMap {
		out.Body = ""
		addMap(&out, n, secs, links, from, to)
		return out, nil
	}
	out.Frontmatter = n.Frontmatter
	if out.Frontmatter == nil {
		out.Frontmatter = map[string]any{}
	}
	out.Links = make([]LinkInfo, 0, len(links))
	snap := e.Snapshot()
	for _, l := range links {
		l.Kind, l.Resolved = snap.ResolveLink(l, n.Path) // n may be newer than the snapshot
		out.Links = append(out.Links, linkInfo(l))
	}
	return out, nil
}

// addMap fills the map-format fields from the sections and links inside
// the file lines [from, to].
func addMap(out *ReadNoteOutput, n *vault.Note, secs []noteSection, links []vault.Link, from, to int) {
	out.FrontmatterKeys = slices.Sorted(maps.Keys(n.Frontmatter))
	if out.FrontmatterKeys == nil {
		out.FrontmatterKeys = []string{}
	}
	out.Sections = []SectionInfo{}
	for _, sec := range secs {
		if inLines(sec.Line, from, to) {
			out.Sections = append(out.Sections, sec.SectionInfo)
		}
	}
	embeds := 0
	for _, l := range links {
		if l.Embed {
			embeds++
		}
	}
	out.WikilinksCount, out.EmbedsCount, out.TagsCount = ptr(len(links)-embeds), ptr(embeds), ptr(len(n.Tags))
}

// readTarget finds the note a read asks for: by path or title, a periodic
// title (today, yesterday, tomorrow, daily, this/last/next week, month,
// quarter or year, weekly, …) when no note has that name.
func (s *Server) readTarget(e *search.Engine, in ReadNoteInput) (n *vault.Note, stale string, err error) {
	snap := e.Snapshot()
	if in.Path == "" && in.Title != "" && snap.Lookup(in.Title) == nil {
		if p, offset, ok := obsidian.ParseRelative(in.Title); ok {
			n, err := s.periodicNote(e, in.Title, p, offset)
			return n, "", err
		}
	}
	n, _, stale, err = openNoteStale(snap, in.Path, in.Title)
	return n, stale, err
}

func checkFormat(f string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "", formatFull:
		return formatFull, nil
	case formatMap:
		return formatMap, nil
	}
	return "", fmt.Errorf("format must be full or map, got %s", quote(f))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// NoteURIPrefix starts every note resource URI.
const NoteURIPrefix = "obsidian://note/"

// NoteURI returns the resource URI of a vault-relative path.
func NoteURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return NoteURIPrefix + strings.Join(segs, "/")
}

func (s *Server) addRead() {
	addTool(s, &mcp.Tool{
		Name:         "obsidian_read_note",
		Title:        "Read a note",
		Description:  "Read one note by vault-relative path or by title/alias (resolved like a wikilink): frontmatter, tags, aliases, headings with line numbers, outbound links with their resolution, and the body. format=map gives an outline without the body (headings with section sizes, frontmatter keys, counts); section returns one heading's section with its line range. The titles today, yesterday, tomorrow and daily open daily notes; this/last/next week, month, quarter and year open periodic notes (the Periodic Notes plugin's folders and formats). A miss suggests the closest titles.",
		Annotations:  readOnly(),
		InputSchema:  readNoteInputSchema(),
		OutputSchema: outputSchema[ReadNoteOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReadNoteInput) (*mcp.CallToolResult, ReadNoteOutput, error) {
		format, err := checkFormat(in.Format)
		if err != nil {
			return nil, ReadNoteOutput{}, err
		}
		e := s.engine() // one engine for the whole request, even across a reload
		n, stale, err := s.readTarget(e, in)
		if err != nil {
			return nil, ReadNoteOutput{}, err
		}
		out, err := renderNote(e, n, format, in.Section)
		out.Stale = stale
		if err != nil || format != formatFull {
			return nil, out, err
		}
		first := n.BodyLine
		if out.Section != "" {
			first = out.LineStart
		}
		err = pageBody(&out, first, in.Offset, in.MaxBytes)
		return nil, out, err
	})
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "note",
		Title:       "Obsidian note",
		Description: "The markdown text of a note; {path} is vault-relative (slashes may be literal or %2F-encoded). resources/list lists every markdown note, sorted by path, " + strconv.Itoa(noteResourcePage) + " per page.",
		MIMEType:    "text/markdown",
		URITemplate: NoteURIPrefix + "{+path}",
	}, s.readNoteResource)
}

func readNoteInputSchema() *jsonschema.Schema {
	s := inputSchema[ReadNoteInput]()
	s.Properties["format"].Enum = []any{formatFull, formatMap}
	s.Properties["format"].Default = jsonRaw(`"full"`)
	readPageSchema(s)
	return s
}

func (s *Server) readNoteResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	p, err := url.PathUnescape(strings.TrimPrefix(uri, NoteURIPrefix))
	if err != nil || !strings.HasPrefix(uri, NoteURIPrefix) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	snap := s.engine().Snapshot() // one snapshot for the whole request
	n, text, stale, err := openNoteStale(snap, p, "")
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var meta mcp.Meta
	if stale != "" {
		meta = mcp.Meta{"stale": stale}
	}
	if n.Kind == vault.KindPDF { // the extracted text, never the binary file
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: n.Body}}}, nil
	}
	if text == "" {
		text = n.Body
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text, Meta: meta}}}, nil
}
