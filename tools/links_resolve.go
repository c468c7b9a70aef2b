package tools

import (
	"errors"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/subpath"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// resolveContentRunes caps the content obsidian_resolve_wikilink returns.
const resolveContentRunes = 4000

// ResolveWikilinkInput is the obsidian_resolve_wikilink request.
type ResolveWikilinkInput struct {
	Wikilink       string `json:"wikilink" jsonschema:"The link, with or without [[ ]]: Note, [[Note|shown]], [[Folder/Note#Heading]], [[Note#^block-id]], ![[embed]], or a markdown link [text](path)."`
	From           string `json:"from,omitempty" jsonschema:"Vault-relative path of the note the link is written in: relative links and same-folder tie-breaks depend on it. Default: the vault root."`
	Source         string `json:"source,omitempty" jsonschema:"Same as from."`
	FromNote       string `json:"from_note,omitempty" jsonschema:"Same as from (the reference server's name)."`
	IncludeContent bool   `json:"include_content,omitempty" jsonschema:"Also return the target's text: the heading's section, the block, the PDF page or the whole note (re-read from disk, capped at 4000 characters). Default false."`
}

// ResolveWikilinkOutput is where a link leads.
type ResolveWikilinkOutput struct {
	Wikilink         string   `json:"wikilink" jsonschema:"The link as parsed (with brackets)."`
	From             string   `json:"from,omitempty" jsonschema:"The note path the link was resolved from."`
	Found            bool     `json:"found" jsonschema:"The target exists (a note or an attachment)."`
	Kind             string   `json:"kind" jsonschema:"note, attachment or unresolved."`
	Path             string   `json:"path" jsonschema:"Vault-relative path of the target; empty when unresolved."`
	Title            string   `json:"title" jsonschema:"The target note's title (an attachment's file name); empty when unresolved."`
	Target           string   `json:"target" jsonschema:"The link's path part; empty for a same-note link like [[#Heading]]."`
	Embed            bool     `json:"embed"`
	Alias            string   `json:"alias,omitempty" jsonschema:"Display text after |."`
	Heading          string   `json:"heading,omitempty" jsonschema:"The #heading part (for a PDF: page=N)."`
	HeadingFound     *bool    `json:"heading_found,omitempty" jsonschema:"Whether the target has that heading (or PDF page); only with a heading."`
	HeadingLine      int      `json:"heading_line,omitempty" jsonschema:"1-based file line of the heading (a PDF page's first text line)."`
	Page             int      `json:"page,omitempty" jsonschema:"The PDF page a #page=N link points to."`
	Block            string   `json:"block,omitempty" jsonschema:"The #^block id."`
	BlockFound       *bool    `json:"block_found,omitempty" jsonschema:"Whether the target has that block id; only with a block."`
	BlockLine        int      `json:"block_line,omitempty" jsonschema:"1-based file line of the block id."`
	Content          string   `json:"content,omitempty" jsonschema:"With include_content: the section, block, page or note text."`
	ContentTruncated bool     `json:"content_truncated,omitempty" jsonschema:"content was cut at 4000 characters."`
	Suggestions      []string `json:"suggestions,omitempty" jsonschema:"When unresolved: titles of the closest existing notes (at most 3)."`
}

// parseWikilinkArg parses the user's link text with the vault parser, so
// the link splits exactly as it would inside a note.
func parseWikilinkArg(text string) (vault.Link, error) {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return vault.Link{}, errors.New("wikilink is empty")
	case strings.ContainsAny(t, "\r\n"):
		return vault.Link{}, errors.New("wikilink must be one line")
	}
	bare := strings.TrimPrefix(t, "!")
	isMarkdown := strings.HasPrefix(bare, "[") && !strings.HasPrefix(bare, "[[") && strings.Contains(bare, "](")
	if !strings.HasPrefix(bare, "[[") && !isMarkdown {
		t = strings.TrimSuffix(t, bare) + "[[" + bare + "]]"
	}
	n, _ := vault.Parse("wikilink.md", []byte(t))
	if len(n.Links) != 1 || n.Links[0].Raw != t {
		return vault.Link{}, errors.New("wikilink must be a single link such as [[Note#Heading|alias]]")
	}
	return n.Links[0], nil
}

// resolveFrom turns the from argument into the note path links resolve
// from: an existing note (by path, or by title as a fallback), else the
// cleaned path itself (a note not written yet still has a folder).
func (ix *linkTables) resolveFrom(ref string) (string, error) {
	if ref = strings.TrimSpace(ref); ref == "" {
		return "", nil
	}
	clean, ok := vault.CleanRelPath(ref)
	if !ok {
		return "", errNotFound(ref, nil)
	}
	if id, ok := ix.snap.NoteID(clean); ok {
		return ix.snap.Notes[id].Path, nil
	}
	if id, ok := ix.lookup(ref); ok {
		return ix.snap.Notes[id].Path, nil
	}
	return clean + ifMissing(clean, ".md"), nil
}

// resolveWikilink answers obsidian_resolve_wikilink.
func (ix *linkTables) resolveWikilink(in ResolveWikilinkInput) (ResolveWikilinkOutput, error) {
	l, err := parseWikilinkArg(in.Wikilink)
	if err != nil {
		return ResolveWikilinkOutput{}, err
	}
	from, err := ix.resolveFrom(linkFirstNonEmpty(in.From, in.Source, in.FromNote))
	if err != nil {
		return ResolveWikilinkOutput{}, err
	}
	kind, resolved := ix.snap.ResolveLink(l, from)
	out := ResolveWikilinkOutput{
		Wikilink: l.Raw, From: from, Kind: string(kind), Found: kind != vault.LinkUnresolved,
		Path: resolved, Target: l.Target, Embed: l.Embed, Alias: l.Alias, Heading: l.Heading, Block: l.Block,
	}
	switch {
	case kind == vault.LinkUnresolved:
		if l.Target != "" {
			out.Suggestions = ix.suggestTitles(l.Target)
		}
		return out, nil
	case kind == vault.LinkAttachment:
		out.Title = path.Base(resolved)
	}
	n := ix.snap.Note(resolved) // a note, or a PDF indexed as a document
	if n == nil {
		return out, nil
	}
	out.Title = n.Title
	if in.IncludeContent {
		n, _ = currentNote(ix.snap, n.Path)
	}
	linkLocateSubpath(&out, n, in.IncludeContent)
	return out, nil
}

// linkLocateSubpath checks the heading, page or block of a link against the
// target note and, when asked, fills in the matching text.
func linkLocateSubpath(out *ResolveWikilinkOutput, n *vault.Note, withContent bool) {
	content := n.Body
	switch {
	case out.Block != "":
		b, ok := subpath.Block(n.Blocks, out.Block)
		out.BlockFound, out.BlockLine = &ok, b.Line
		content = ""
		if ok {
			content = subpath.BlockText(n, b)
		}
	case out.Heading != "" && n.Kind == vault.KindPDF:
		page, line, text, ok := subpath.Page(n, out.Heading)
		out.HeadingFound, out.HeadingLine, out.Page, content = &ok, line, page, text
	case out.Heading != "":
		h, ok := subpath.Heading(n.Headings, out.Heading)
		out.HeadingFound, out.HeadingLine = &ok, h.Line
		content = ""
		if ok {
			content = subpath.SectionText(n, h)
		}
	}
	if withContent {
		out.Content, out.ContentTruncated = linkCapRunes(strings.TrimSpace(content), resolveContentRunes)
	}
}

// linkCapRunes cuts s to at most n runes.
func linkCapRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if off := linkRuneOffset(s, n); off < len(s) {
		return s[:off], true
	}
	return s, false
}

func linkFirstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func (s *Server) addResolveWikilink(c *linkCache) {
	in := inputSchema[ResolveWikilinkInput]()
	in.Properties["wikilink"].MinLength, in.Properties["wikilink"].MaxLength = ptr(1), ptr(4096)
	in.Properties["include_content"].Default = jsonRaw(`false`)
	out := outputSchema[ResolveWikilinkOutput]()
	out.Properties["kind"].Enum = []any{string(vault.LinkNote), string(vault.LinkAttachment), string(vault.LinkUnresolved)}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_resolve_wikilink",
		Title:        "Resolve a wikilink",
		Description:  "Resolve a [[wikilink]] (with |alias, #heading, #^block, ! embed) exactly as the vault's link graph does, optionally from the note it is written in: the target note or attachment, whether the heading or block exists and on which line, and with include_content the section, block or note text. An unresolved link suggests the closest existing titles.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: out,
	}, linkHandler(s, c, (*linkTables).resolveWikilink))
}
