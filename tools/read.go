package tools

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// ReadNoteInput names a note by path or by title.
type ReadNoteInput struct {
	Path  string `json:"path,omitempty" jsonschema:"Vault-relative path, e.g. Projects/Plan.md (.md optional)."`
	Title string `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]."`
}

// ReadNoteOutput is a parsed note.
type ReadNoteOutput struct {
	Path        string          `json:"path"`
	Title       string          `json:"title"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Tags        []string        `json:"tags"`
	Aliases     []string        `json:"aliases"`
	Headings    []vault.Heading `json:"headings"`
	Links       []LinkInfo      `json:"links" jsonschema:"Outbound links in document order, with their resolution."`
	Body        string          `json:"body" jsonschema:"Text after the frontmatter."`
	Size        int64           `json:"size"`
	Modified    string          `json:"modified" jsonschema:"Last modification time, RFC 3339."`
	AgeDays     int             `json:"age_days"`
}

// LinkInfo is one outbound link.
type LinkInfo struct {
	Raw      string `json:"raw"`
	Target   string `json:"target"`
	Heading  string `json:"heading,omitempty"`
	Block    string `json:"block,omitempty"`
	Alias    string `json:"alias,omitempty"`
	Embed    bool   `json:"embed"`
	Line     int    `json:"line"`
	Status   string `json:"status" jsonschema:"note, attachment or unresolved."`
	Resolved string `json:"resolved,omitempty" jsonschema:"Vault-relative path the link resolves to."`
}

// errNotFound is the one message for a missing note and for a path that
// escapes the vault, so probing reveals nothing outside it.
func errNotFound(ref string, suggestions []string) error {
	msg := fmt.Sprintf("note not found: %q", ref)
	if len(suggestions) > 0 {
		msg += "; did you mean: " + strings.Join(suggestions, ", ")
	}
	return errors.New(msg)
}

// openNote finds a note by path or title and re-reads it from disk so the
// answer is current; the snapshot's copy is the fallback.
func openNote(snap *vault.Snapshot, p, title string) (*vault.Note, error) {
	ref := p
	var n *vault.Note
	switch {
	case p != "" && title != "":
		return nil, errors.New("give path or title, not both")
	case p != "":
		clean, ok := cleanRelPath(p)
		if !ok {
			return nil, errNotFound(p, nil)
		}
		n = snap.Note(clean)
		if n == nil {
			n = readLive(snap, clean+ifMissing(clean, ".md"))
		}
	case title != "":
		ref = title
		n = snap.Lookup(title)
	default:
		return nil, errors.New("give path or title")
	}
	if n == nil {
		return nil, errNotFound(ref, snap.Suggest(ref, 5))
	}
	if live := readLive(snap, n.Path); live != nil {
		n = live
	}
	return n, nil
}

func ifMissing(p, ext string) string {
	if strings.EqualFold(path.Ext(p), ext) {
		return ""
	}
	return ext
}

// cleanRelPath normalises a user path and refuses anything that could
// leave the vault (absolute, "..", drive letters, NUL).
func cleanRelPath(p string) (string, bool) {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return "", false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", false
		}
	}
	c := path.Clean(p)
	return c, c != "." && !vault.Skipped(path.Base(c)) && !hiddenPath(c)
}

// hiddenPath reports a path inside a skipped folder (.obsidian, .git, …).
func hiddenPath(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg != "." && vault.Skipped(seg) {
			return true
		}
	}
	return false
}

// readLive parses the note file at a vault-relative path if it exists
// inside the vault (after resolving symlinks) and is a markdown file.
func readLive(snap *vault.Snapshot, rel string) *vault.Note {
	if !vault.IsNote(rel) {
		return nil
	}
	abs, err := filepath.EvalSymlinks(filepath.Join(snap.Root, filepath.FromSlash(rel)))
	if err != nil || !vault.Within(snap.Root, abs) {
		return nil
	}
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || info.Size() > vault.DefaultMaxFileSize {
		return nil
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return nil
	}
	if n := snap.Note(rel); n != nil {
		rel = n.Path // keep the snapshot's spelling of the path
	}
	n, _ := vault.Parse(rel, raw)
	n.ModTime = info.ModTime()
	return n
}

func (s *Server) readNoteOutput(n *vault.Note) ReadNoteOutput {
	snap := s.engine().Snapshot()
	out := ReadNoteOutput{
		Path: n.Path, Title: n.Title, Frontmatter: n.Frontmatter, Tags: nonNil(n.Tags),
		Aliases: nonNil(n.Aliases), Headings: nonNil(n.Headings), Body: n.Body, Size: n.Size,
		Modified: n.ModTime.UTC().Format(time.RFC3339), Links: []LinkInfo{},
		AgeDays: max(0, int(time.Since(n.ModTime)/(24*time.Hour))),
	}
	if out.Frontmatter == nil {
		out.Frontmatter = map[string]any{}
	}
	for _, l := range n.Links {
		kind, resolved := snap.ResolveLink(l, n.Path)
		out.Links = append(out.Links, LinkInfo{Raw: l.Raw, Target: l.Target, Heading: l.Heading, Block: l.Block,
			Alias: l.Alias, Embed: l.Embed, Line: l.Line, Status: string(kind), Resolved: resolved})
	}
	return out
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
		Description:  "Read one note by vault-relative path or by title/alias (resolved like a wikilink): frontmatter, tags, aliases, headings with line numbers, outbound links with their resolution, and the body. A miss suggests the closest titles.",
		Annotations:  readOnly(),
		InputSchema:  inputSchema[ReadNoteInput](),
		OutputSchema: outputSchema[ReadNoteOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ReadNoteInput) (*mcp.CallToolResult, ReadNoteOutput, error) {
		n, err := openNote(s.engine().Snapshot(), in.Path, in.Title)
		if err != nil {
			return nil, ReadNoteOutput{}, err
		}
		return nil, s.readNoteOutput(n), nil
	})
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "note",
		Title:       "Obsidian note",
		Description: "The markdown text of a note; {path} is vault-relative (slashes may be literal or %2F-encoded).",
		MIMEType:    "text/markdown",
		URITemplate: NoteURIPrefix + "{+path}",
	}, s.readNoteResource)
}

func (s *Server) readNoteResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	p, err := url.PathUnescape(strings.TrimPrefix(uri, NoteURIPrefix))
	if err != nil || !strings.HasPrefix(uri, NoteURIPrefix) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	n, err := openNote(s.engine().Snapshot(), p, "")
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text := n.Body
	if live := readRaw(s.engine().Snapshot(), n.Path); live != "" {
		text = live
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}

// readRaw returns the file's full text (frontmatter included), or "".
func readRaw(snap *vault.Snapshot, rel string) string {
	abs, err := filepath.EvalSymlinks(filepath.Join(snap.Root, filepath.FromSlash(rel)))
	if err != nil || !vault.Within(snap.Root, abs) {
		return ""
	}
	raw, err := os.ReadFile(abs)
	if err != nil {
		return ""
	}
	return string(raw)
}
