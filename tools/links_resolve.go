package tools

import (
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
func (ix *linkIndex) resolveFrom(ref string) (string, error) {
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
func (ix *linkIndex) resolveWikilink(in ResolveWikilinkInput) (ResolveWikilinkOutput, error) {
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
		b, ok := linkFindBlock(n.Blocks, out.Block)
		out.BlockFound, out.BlockLine = &ok, b.Line
		content = ""
		if ok {
			content = linkBlockText(n, b)
		}
	case out.Heading != "" && n.Kind == vault.KindPDF:
		page, line, text, ok := linkFindPage(n, out.Heading)
		out.HeadingFound, out.HeadingLine, out.Page, content = &ok, line, page, text
	case out.Heading != "":
		h, ok := linkFindHeading(n.Headings, out.Heading)
		out.HeadingFound, out.HeadingLine = &ok, h.Line
		content = ""
		if ok {
			content = linkSectionText(n, h)
		}
	}
	if withContent {
		out.Content, out.ContentTruncated = linkCapRunes(strings.TrimSpace(content), resolveContentRunes)
	}
}

// linkFindHeading matches a link's heading part against a note's headings:
// exactly (ignoring case), or after dropping the characters Obsidian
// drops from heading links. "A#B" is a nested heading path: B after A.
func linkFindHeading(hs []vault.Heading, sub string) (vault.Heading, bool) {
	var found vault.Heading
	next := 0
	for _, seg := range strings.Split(sub, "#") {
		if seg = strings.TrimSpace(seg); seg == "" {
			continue
		}
		i := -1
		for k := next; k < len(hs); k++ {
			if strings.EqualFold(hs[k].Text, seg) || linkHeadingKey(hs[k].Text) == linkHeadingKey(seg) {
				i = k
				break
			}
		}
		if i < 0 {
			return vault.Heading{}, false
		}
		found, next = hs[i], i+1
	}
	return found, found.Line > 0
}

// linkHeadingKey is a heading's text compared loosely: lower case, without
// link-breaking punctuation, single spaces.
func linkHeadingKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`#^[]|:\*%`, r) {
			return ' '
		}
		return r
	}, strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

func linkFindBlock(bs []vault.Block, id string) (vault.Block, bool) {
	for _, b := range bs {
		if strings.EqualFold(b.ID, strings.TrimSpace(id)) {
			return b, true
		}
	}
	return vault.Block{}, false
}

// linkFindPage reads "page=N" against a PDF document's pages.
func linkFindPage(n *vault.Note, sub string) (page, line int, text string, ok bool) {
	num, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sub), "page=")))
	if err != nil {
		return 0, 0, "", false
	}
	for i, p := range n.PageTexts() {
		if p.Number == num {
			return num, n.Pages[i].Line, p.Text, true
		}
	}
	return num, 0, "", false
}

// linkBodyLines splits a note's body; line l of the file is lines[l-BodyLine].
func linkBodyLines(n *vault.Note) []string { return strings.Split(n.Body, "\n") }

// linkSectionText is a heading and everything under it, up to the next
// heading of the same or a higher level.
func linkSectionText(n *vault.Note, h vault.Heading) string {
	lines := linkBodyLines(n)
	start, end := h.Line-n.BodyLine, len(lines)
	for _, o := range n.Headings {
		if o.Line > h.Line && o.Level <= h.Level {
			end = o.Line - n.BodyLine
			break
		}
	}
	if start < 0 || start >= len(lines) || end <= start {
		return ""
	}
	return strings.Join(lines[start:min(end, len(lines))], "\n")
}

// linkBlockText is the paragraph or list item a block id ends, without
// the id. An id alone on its line (after a blank line, as Obsidian writes
// them for tables, lists and quotes) names the whole block above it.
func linkBlockText(n *vault.Note, b vault.Block) string {
	lines := linkBodyLines(n)
	end := b.Line - n.BodyLine
	if end < 0 || end >= len(lines) {
		return ""
	}
	marker := "^" + b.ID
	standalone := strings.TrimSpace(lines[end]) == marker
	if standalone {
		end--
		for end >= 0 && strings.TrimSpace(lines[end]) == "" {
			end--
		}
		if end < 0 {
			return ""
		}
	}
	start := end
	if standalone || !linkIsListLine(lines[end]) {
		for start > 0 && strings.TrimSpace(lines[start-1]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[start-1]), "#") {
			start--
		}
	}
	text := strings.TrimSpace(strings.Join(lines[start:end+1], "\n"))
	return strings.TrimSpace(strings.TrimSuffix(text, marker))
}

// linkIsListLine reports a list item line ("- x", "* x", "+ x", "1. x").
func linkIsListLine(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && t[1] == ' ' {
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
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
	}, linkHandler(s, c, (*linkIndex).resolveWikilink))
}
