package tools

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Paging and size limits of the link tools.
const (
	backlinksDefaultLimit  = 50
	backlinksMaxLimit      = 500
	backlinksPerNote       = 5 // links listed per linking note
	unresolvedDefaultLimit = 50
	unresolvedMaxLimit     = 2000
	unresolvedTargetsMax   = 100
	outboundDefaultLimit   = 1000
	outboundMaxLimit       = 5000
	neighborsDefault       = 20
	neighborsMax           = 100
	findPathMaxDepth       = 10
	findPathAlternatives   = 10
)

// BacklinksInput is the obsidian_get_backlinks request.
type BacklinksInput struct {
	Path          string `json:"path,omitempty" jsonschema:"Vault-relative path of the target note (.md optional), or of an attachment such as a PDF."`
	Title         string `json:"title,omitempty" jsonschema:"Target note name, title or alias, resolved like a [[wikilink]]."`
	IncludeEmbeds *bool  `json:"include_embeds,omitempty" jsonschema:"Count ![[embeds]] too (default true)."`
	Limit         int    `json:"limit,omitempty" jsonschema:"Linking notes per page (1-500, default 50)."`
	Cursor        string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
}

// BacklinksOutput lists the notes linking to a note or attachment.
type BacklinksOutput struct {
	Path       string     `json:"path"`
	Title      string     `json:"title"`
	Kind       string     `json:"kind" jsonschema:"md, pdf (a PDF indexed as a document) or attachment."`
	Total      int        `json:"total" jsonschema:"Linking notes, on every page."`
	TotalLinks int        `json:"total_links" jsonschema:"Links from those notes."`
	Backlinks  []Backlink `json:"backlinks" jsonschema:"Most links first, then by path."`
	NextCursor string     `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

// Backlink is one note linking to the target.
type Backlink struct {
	Path     string         `json:"path"`
	Title    string         `json:"title"`
	Count    int            `json:"count" jsonschema:"Links from this note to the target."`
	LinkKind string         `json:"link_kind" jsonschema:"wikilink (plain links only), embed (embeds only) or mixed."`
	Links    []BacklinkLine `json:"links" jsonschema:"The first links (at most 5) in document order."`
}

// BacklinkLine is one link with its context.
type BacklinkLine struct {
	Line     int    `json:"line" jsonschema:"1-based file line in the linking note."`
	Raw      string `json:"raw" jsonschema:"The link as written."`
	Property string `json:"property,omitempty" jsonschema:"The frontmatter key whose value holds the link (a link in a property)."`
	Snippet  string `json:"snippet" jsonschema:"About 160 characters of the line around the link (key: link for a property)."`
}

// OutboundLinksInput is the obsidian_get_outbound_links request.
type OutboundLinksInput struct {
	Path              string `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title             string `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]."`
	IncludeEmbeds     *bool  `json:"include_embeds,omitempty" jsonschema:"Include ![[embeds]] (default true)."`
	IncludeUnresolved *bool  `json:"include_unresolved,omitempty" jsonschema:"Include links to notes that do not exist (default true)."`
	Limit             int    `json:"limit,omitempty" jsonschema:"Links per page (1-5000, default 1000)."`
	Cursor            string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
}

// OutboundLinksOutput lists a note's links.
type OutboundLinksOutput struct {
	Path  string         `json:"path"`
	Title string         `json:"title"`
	Links []OutboundLink `json:"links" jsonschema:"In document order."`
	// Total counts the links on every page.
	Total      int    `json:"total" jsonschema:"Links on every page."`
	NextCursor string `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

// OutboundLink is one link of a note with its resolution and the title
// of what it resolves to.
type OutboundLink struct {
	LinkInfo
	ResolvedTitle string `json:"resolved_title,omitempty" jsonschema:"Title of the note it resolves to (an attachment's file name)."`
}

// UnresolvedInput is the obsidian_get_unresolved_wikilinks request.
type UnresolvedInput struct {
	Folder        string `json:"folder,omitempty" jsonschema:"Only links written in notes under this vault-relative folder."`
	IncludeEmbeds *bool  `json:"include_embeds,omitempty" jsonschema:"Include ![[embeds]] (default true)."`
	Limit         int    `json:"limit,omitempty" jsonschema:"Links per page (1-2000, default 50)."`
	Cursor        string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
}

// UnresolvedOutput lists links to notes that do not exist.
type UnresolvedOutput struct {
	Folder       string             `json:"folder,omitempty"`
	Total        int                `json:"total" jsonschema:"Unresolved links, on every page."`
	TotalTargets int                `json:"total_targets" jsonschema:"Distinct missing targets (case-insensitive)."`
	Unresolved   []UnresolvedLink   `json:"unresolved" jsonschema:"By linking note path, then line."`
	Targets      []UnresolvedTarget `json:"targets" jsonschema:"The most linked missing targets (at most 100), over every page: notes worth creating."`
	NextCursor   string             `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

// UnresolvedLink is one link whose target exists nowhere in the vault.
type UnresolvedLink struct {
	FromPath    string   `json:"from_path"`
	Target      string   `json:"target"`
	Raw         string   `json:"raw"`
	Heading     string   `json:"heading,omitempty"`
	Block       string   `json:"block,omitempty"`
	Alias       string   `json:"alias,omitempty"`
	Line        int      `json:"line"`
	Embed       bool     `json:"embed"`
	Property    string   `json:"property,omitempty" jsonschema:"The frontmatter key whose value holds the link (a link in a property)."`
	Snippet     string   `json:"snippet"`
	Suggestions []string `json:"suggestions" jsonschema:"Titles of the closest existing notes (at most 3), for a typo."`
}

// UnresolvedTarget is a missing target and how often it is linked.
type UnresolvedTarget struct {
	Target string `json:"target"`
	Count  int    `json:"count"`
}

// NeighborsInput is the obsidian_get_note_neighbors request.
type NeighborsInput struct {
	Path         string `json:"path,omitempty" jsonschema:"Vault-relative path of the note (.md optional)."`
	Title        string `json:"title,omitempty" jsonschema:"Note name, title or alias, resolved like a [[wikilink]]."`
	MaxPerBucket int    `json:"max_per_bucket,omitempty" jsonschema:"Notes per bucket (1-100, default 20)."`
}

// NeighborsOutput is a note's neighbourhood: what it links to, what links
// to it, and notes sharing its tags.
type NeighborsOutput struct {
	Center           NeighborNote      `json:"center"`
	Outbound         []NeighborNote    `json:"outbound" jsonschema:"Notes it links to, in order of first link."`
	Inbound          []InboundNeighbor `json:"inbound" jsonschema:"Notes linking to it, most links first."`
	TagSiblings      []TagSibling      `json:"tag_siblings" jsonschema:"Notes sharing its tags: most shared tags first, then rarer shared tags, then path."`
	OutboundTotal    int               `json:"outbound_total"`
	InboundTotal     int               `json:"inbound_total"`
	TagSiblingsTotal int               `json:"tag_siblings_total"`
	IgnoredTags      []string          `json:"ignored_tags,omitempty" jsonschema:"Tags of the note carried by more than half of the vault's notes (vaults of 20 notes or more), not used for siblings."`
}

// NeighborNote is a note with its tags.
type NeighborNote struct {
	Path     string   `json:"path"`
	Title    string   `json:"title"`
	Tags     []string `json:"tags"`
	Modified string   `json:"mtime,omitempty" jsonschema:"Last modification time, RFC 3339 (center only)."`
}

// InboundNeighbor is a note linking to the center.
type InboundNeighbor struct {
	Path  string   `json:"path"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	Count int      `json:"count" jsonschema:"Links to the center."`
}

// TagSibling is a note sharing tags with the center.
type TagSibling struct {
	Path       string   `json:"path"`
	Title      string   `json:"title"`
	SharedTags []string `json:"shared_tags"`
}

// FindPathInput is the obsidian_find_path request.
type FindPathInput struct {
	From                string `json:"from,omitempty" jsonschema:"Start note: vault-relative path, name, title or alias (resolved like a wikilink)."`
	To                  string `json:"to,omitempty" jsonschema:"Goal note, like from."`
	FromTitle           string `json:"from_title,omitempty" jsonschema:"Same as from."`
	ToTitle             string `json:"to_title,omitempty" jsonschema:"Same as to."`
	MaxDepth            int    `json:"max_depth,omitempty" jsonschema:"Most hops (1-10, default 5)."`
	IncludeAlternatives bool   `json:"include_alternatives,omitempty" jsonschema:"Also return up to 10 other shortest paths (default false)."`
	FollowEmbeds        *bool  `json:"follow_embeds,omitempty" jsonschema:"Let paths go through ![[embeds]] (default true)."`
	Direction           string `json:"direction,omitempty" jsonschema:"outbound (default): follow links as written; any: links count both ways."`
}

// FindPathOutput is the shortest chain of links between two notes.
type FindPathOutput struct {
	From         string       `json:"from"`
	To           string       `json:"to"`
	Direction    string       `json:"direction"`
	Found        bool         `json:"found"`
	Hops         int          `json:"hops" jsonschema:"Links on the path; 0 when from is to, -1 when no path within max_depth."`
	Path         []PathStep   `json:"path"`
	Alternatives [][]PathStep `json:"alternatives,omitempty" jsonschema:"Other shortest paths (include_alternatives)."`
	Truncated    bool         `json:"truncated,omitempty" jsonschema:"The search hit its visit cap before max_depth; a path may still exist."`
}

// PathStep is one note on a path and the link that led to it.
type PathStep struct {
	Path     string `json:"path"`
	Title    string `json:"title"`
	Via      string `json:"via" jsonschema:"The link as written that leads here; empty on the first step."`
	Backward bool   `json:"backward,omitempty" jsonschema:"direction any: the link is written in this note and points back to the previous one."`
}

// addLinkTools registers the link-graph tools. They share one cache of
// structures derived from the current engine.
func (s *Server) addLinkTools() {
	c := &linkCache{}
	s.addResolveWikilink(c)
	s.addBacklinks(c)
	s.addOutboundLinks(c)
	s.addUnresolved(c)
	s.addNeighbors(c)
	s.addFindPath(c)
}

// linkHandler adapts a linkTables method to a tool handler: the tables of
// the current engine answer, unless the call was already cancelled.
func linkHandler[In, Out any](s *Server, c *linkCache, f func(*linkTables, In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		if err := ctx.Err(); err != nil {
			var zero Out
			return nil, zero, err
		}
		out, err := f(c.get(s.engine()), in)
		return nil, out, err
	}
}

// linkBoolDefault makes a *bool property a plain boolean with a default.
func linkBoolDefault(p *jsonschema.Schema, def bool) {
	p.Types, p.Type = nil, "boolean"
	p.Default = jsonRaw(fmt.Sprint(def))
}

func linkBoolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// ---- obsidian_get_backlinks

// backlinkTarget finds what backlinks are asked for: a note (or a PDF
// document) by path or title, else an attachment by path or file name.
func (ix *linkTables) backlinkTarget(p, title string) (edges []graph.Edge, out BacklinksOutput, err error) {
	id, err := ix.findNote(p, title)
	if err == nil {
		n := ix.snap.Notes[id]
		return ix.g.Backlinks(id), BacklinksOutput{Path: n.Path, Title: n.Title, Kind: n.Kind}, nil
	}
	ref := p + title
	if p != "" {
		clean, ok := vault.CleanRelPath(p)
		if !ok {
			return nil, out, err
		}
		ref = clean
	}
	if ref == "" || (p != "" && title != "") {
		return nil, out, err
	}
	kind, att := ix.snap.Resolve(ref, "")
	if kind != vault.LinkAttachment {
		return nil, out, err
	}
	out = BacklinksOutput{Path: att, Title: path.Base(att), Kind: "attachment"}
	if doc := ix.snap.Note(att); doc != nil {
		out.Title, out.Kind = doc.Title, doc.Kind
	}
	return ix.g.AttachmentBacklinks(att), out, nil
}

// backlinkGroup is the links of one note to the target: edges[lo:hi].
type backlinkGroup struct {
	from, lo, hi, embeds int
}

// backlinks answers obsidian_get_backlinks.
func (ix *linkTables) backlinks(in BacklinksInput) (BacklinksOutput, error) {
	offset, size, err := linkPage("backlinks", in.Limit, backlinksDefaultLimit, backlinksMaxLimit, in.Cursor)
	if err != nil {
		return BacklinksOutput{}, err
	}
	edges, out, err := ix.backlinkTarget(in.Path, in.Title)
	if err != nil {
		return BacklinksOutput{}, err
	}
	embeds := linkBoolOr(in.IncludeEmbeds, true)
	if !embeds {
		edges = slices.DeleteFunc(slices.Clone(edges), func(e graph.Edge) bool { return ix.link(e).Embed })
	}
	groups := groupBacklinks(edges, ix.link)
	slices.SortStableFunc(groups, func(a, b backlinkGroup) int { return (b.hi - b.lo) - (a.hi - a.lo) }) // edges are in path order
	out.Total, out.TotalLinks = len(groups), len(edges)
	out.Backlinks = make([]Backlink, 0, min(size, len(groups)))
	for _, gr := range linkPageOf(groups, offset, size) {
		out.Backlinks = append(out.Backlinks, ix.backlink(edges, gr))
	}
	out.NextCursor = linkNextCursor("backlinks", offset, size, len(groups))
	return out, nil
}

// groupBacklinks groups edges (grouped by linking note already) by note.
func groupBacklinks(edges []graph.Edge, link func(graph.Edge) vault.Link) []backlinkGroup {
	var groups []backlinkGroup
	for i, e := range edges {
		if len(groups) == 0 || groups[len(groups)-1].from != e.From {
			groups = append(groups, backlinkGroup{from: e.From, lo: i})
		}
		gr := &groups[len(groups)-1]
		gr.hi = i + 1
		if link(e).Embed {
			gr.embeds++
		}
	}
	return groups
}

func (ix *linkTables) backlink(edges []graph.Edge, gr backlinkGroup) Backlink {
	n := ix.snap.Notes[gr.from]
	b := Backlink{Path: n.Path, Title: n.Title, Count: gr.hi - gr.lo, LinkKind: "mixed"}
	switch gr.embeds {
	case 0:
		b.LinkKind = "wikilink"
	case b.Count:
		b.LinkKind = "embed"
	}
	for _, e := range edges[gr.lo:min(gr.hi, gr.lo+backlinksPerNote)] {
		l := ix.link(e)
		b.Links = append(b.Links, BacklinkLine{Line: l.Line, Raw: l.Raw, Property: l.Property, Snippet: linkSnippet(linkLine(n, l), l.Raw, linkSnippetRunes)})
	}
	return b
}

// link returns the link an edge stands for.
func (ix *linkTables) link(e graph.Edge) vault.Link { return ix.snap.Notes[e.From].Links[e.Link] }

func (s *Server) addBacklinks(c *linkCache) {
	in := inputSchema[BacklinksInput]()
	linkBoolDefault(in.Properties["include_embeds"], true)
	setRange(in.Properties["limit"], 1, backlinksMaxLimit, backlinksDefaultLimit)
	out := outputSchema[BacklinksOutput]()
	out.Properties["backlinks"].Items.Properties["link_kind"].Enum = []any{"wikilink", "embed", "mixed"}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_backlinks",
		Title:        "Backlinks of a note",
		Description:  "Notes that link to a note (by path or title/alias) or to an attachment such as a PDF, most links first, each with its link kind (wikilink, embed, mixed) and the first links with line numbers and a snippet of context. Paged with limit and cursor.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: out,
	}, linkHandler(s, c, (*linkTables).backlinks))
}

// ---- obsidian_get_outbound_links

// outbound answers obsidian_get_outbound_links from the snapshot's
// resolution, so it matches the graph exactly.
func (ix *linkTables) outbound(in OutboundLinksInput) (OutboundLinksOutput, error) {
	offset, size, err := linkPage("outbound", in.Limit, outboundDefaultLimit, outboundMaxLimit, in.Cursor)
	if err != nil {
		return OutboundLinksOutput{}, err
	}
	id, err := ix.findNote(in.Path, in.Title)
	if err != nil {
		return OutboundLinksOutput{}, err
	}
	n := ix.snap.Notes[id]
	embeds, unresolved := linkBoolOr(in.IncludeEmbeds, true), linkBoolOr(in.IncludeUnresolved, true)
	out := OutboundLinksOutput{Path: n.Path, Title: n.Title, Links: []OutboundLink{}}
	for _, l := range n.Links {
		if (l.Embed && !embeds) || (l.Kind == vault.LinkUnresolved && !unresolved) {
			continue
		}
		if out.Total >= offset && out.Total < offset+size {
			out.Links = append(out.Links, OutboundLink{LinkInfo: linkInfo(l), ResolvedTitle: ix.titleOf(l)})
		}
		out.Total++
	}
	out.NextCursor = linkNextCursor("outbound", offset, size, out.Total)
	return out, nil
}

// titleOf is the title of what a link resolves to: a note's (or PDF
// document's) title, an attachment's file name, "" when unresolved.
func (ix *linkTables) titleOf(l vault.Link) string {
	if l.Kind == vault.LinkUnresolved {
		return ""
	}
	if n := ix.snap.Note(l.Resolved); n != nil {
		return n.Title
	}
	return path.Base(l.Resolved)
}

func (s *Server) addOutboundLinks(c *linkCache) {
	in := inputSchema[OutboundLinksInput]()
	linkBoolDefault(in.Properties["include_embeds"], true)
	linkBoolDefault(in.Properties["include_unresolved"], true)
	setRange(in.Properties["limit"], 1, outboundMaxLimit, outboundDefaultLimit)
	out := outputSchema[OutboundLinksOutput]()
	out.Properties["links"].Items.Properties["status"].Enum = []any{string(vault.LinkNote), string(vault.LinkAttachment), string(vault.LinkUnresolved)}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_outbound_links",
		Title:        "Outbound links of a note",
		Description:  "Every link a note (by path or title/alias) writes, in document order: wikilinks, embeds and local markdown links with heading, block, alias, line, and what each resolves to (note, attachment or unresolved) with the target's title.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: out,
	}, linkHandler(s, c, (*linkTables).outbound))
}

// ---- obsidian_get_unresolved_wikilinks

// unresolvedLinks answers obsidian_get_unresolved_wikilinks.
func (ix *linkTables) unresolvedLinks(in UnresolvedInput) (UnresolvedOutput, error) {
	folder, err := search.NormalizeFolder(in.Folder)
	if err != nil {
		return UnresolvedOutput{}, err
	}
	offset, size, err := linkPage("unresolved", in.Limit, unresolvedDefaultLimit, unresolvedMaxLimit, in.Cursor)
	if err != nil {
		return UnresolvedOutput{}, err
	}
	all := ix.missing.Links()
	embeds := linkBoolOr(in.IncludeEmbeds, true)
	matched := all
	if folder != "" || !embeds {
		matched = nil
		for _, u := range all {
			if search.InFolder(ix.snap.Notes[u.From].Path, folder) && (embeds || !ix.snap.Notes[u.From].Links[u.Link].Embed) {
				matched = append(matched, u)
			}
		}
	}
	out := UnresolvedOutput{Folder: folder, Total: len(matched), Unresolved: []UnresolvedLink{}}
	if folder == "" {
		out.Targets, out.TotalTargets = ix.vaultUnresolvedTargets(matched, embeds)
	} else {
		out.Targets, out.TotalTargets = ix.unresolvedTargets(matched)
	}
	for _, u := range linkPageOf(matched, offset, size) {
		n := ix.snap.Notes[u.From]
		l := n.Links[u.Link]
		out.Unresolved = append(out.Unresolved, UnresolvedLink{FromPath: n.Path, Target: l.Target, Raw: l.Raw,
			Heading: l.Heading, Block: l.Block, Alias: l.Alias, Line: l.Line, Embed: l.Embed, Property: l.Property,
			Snippet: linkSnippet(linkLine(n, l), l.Raw, linkSnippetRunes), Suggestions: ix.suggestTitles(l.Target)})
	}
	out.NextCursor = linkNextCursor("unresolved", offset, size, len(matched))
	return out, nil
}

// vaultUnresolvedTargets is unresolvedTargets for the whole vault, which
// is asked for most and is the same on every page: computed once.
func (ix *linkTables) vaultUnresolvedTargets(matched []graph.MissingLink, embeds bool) ([]UnresolvedTarget, int) {
	c := &ix.vaultTargets[0]
	if embeds {
		c = &ix.vaultTargets[1]
	}
	c.once.Do(func() {
		c.targets, c.total = ix.unresolvedTargets(matched)
	})
	return c.targets, c.total
}

// unresolvedTargets lists the most linked missing targets, at most
// unresolvedTargetsMax (see graph.MissingTargets.Top).
func (ix *linkTables) unresolvedTargets(links []graph.MissingLink) ([]UnresolvedTarget, int) {
	top, total := ix.missing.Top(links, unresolvedTargetsMax)
	out := make([]UnresolvedTarget, len(top))
	for i, t := range top {
		out[i] = UnresolvedTarget{Target: t.Target, Count: t.Count}
	}
	return out, total
}

func (s *Server) addUnresolved(c *linkCache) {
	in := inputSchema[UnresolvedInput]()
	linkBoolDefault(in.Properties["include_embeds"], true)
	setRange(in.Properties["limit"], 1, unresolvedMaxLimit, unresolvedDefaultLimit)
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_unresolved_wikilinks",
		Title:        "Unresolved (broken) links",
		Description:  "Links to notes that do not exist, by linking note and line, each with a snippet and the closest existing titles (typos), plus the most linked missing targets (notes worth creating). Optionally within a folder; paged with limit and cursor.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[UnresolvedOutput](),
	}, linkHandler(s, c, (*linkTables).unresolvedLinks))
}

// ---- obsidian_get_note_neighbors

// neighbors answers obsidian_get_note_neighbors.
func (ix *linkTables) neighbors(in NeighborsInput) (NeighborsOutput, error) {
	per := in.MaxPerBucket
	switch {
	case per == 0:
		per = neighborsDefault
	case per < 0 || per > neighborsMax:
		return NeighborsOutput{}, fmt.Errorf("max_per_bucket must be between 1 and %d", neighborsMax)
	}
	id, err := ix.findNote(in.Path, in.Title)
	if err != nil {
		return NeighborsOutput{}, err
	}
	n := ix.snap.Notes[id]
	out := NeighborsOutput{
		Center:   NeighborNote{Path: n.Path, Title: n.Title, Tags: nonNil(n.Tags), Modified: n.ModTime.UTC().Format(time.RFC3339)},
		Outbound: []NeighborNote{}, Inbound: []InboundNeighbor{}, TagSiblings: []TagSibling{},
	}
	var targets []int
	for _, e := range ix.g.Outbound(id) {
		if !slices.Contains(targets, e.To) {
			targets = append(targets, e.To)
		}
	}
	out.OutboundTotal = len(targets)
	for _, t := range targets[:min(per, len(targets))] {
		o := ix.snap.Notes[t]
		out.Outbound = append(out.Outbound, NeighborNote{Path: o.Path, Title: o.Title, Tags: nonNil(o.Tags)})
	}
	groups := groupBacklinks(ix.g.Backlinks(id), ix.link)
	slices.SortStableFunc(groups, func(a, b backlinkGroup) int { return (b.hi - b.lo) - (a.hi - a.lo) })
	out.InboundTotal = len(groups)
	for _, gr := range groups[:min(per, len(groups))] {
		o := ix.snap.Notes[gr.from]
		out.Inbound = append(out.Inbound, InboundNeighbor{Path: o.Path, Title: o.Title, Tags: nonNil(o.Tags), Count: gr.hi - gr.lo})
	}
	tags := ix.tagSiblings()
	sibs, total := tags.Siblings(id, per)
	out.TagSiblingsTotal, out.IgnoredTags = total, tags.Ignored(id)
	for _, sb := range sibs {
		o := ix.snap.Notes[sb.Note]
		out.TagSiblings = append(out.TagSiblings, TagSibling{Path: o.Path, Title: o.Title, SharedTags: sb.Shared})
	}
	return out, nil
}

func (s *Server) addNeighbors(c *linkCache) {
	in := inputSchema[NeighborsInput]()
	setRange(in.Properties["max_per_bucket"], 1, neighborsMax, neighborsDefault)
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_note_neighbors",
		Title:        "Neighbourhood of a note",
		Description:  "A note's neighbourhood in one call: the notes it links to, the notes linking to it (most links first), and notes sharing its tags (most shared tags first, rarer tags weigh more; tags on more than half of a large vault are ignored), each with title and tags.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[NeighborsOutput](),
	}, linkHandler(s, c, (*linkTables).neighbors))
}

// ---- obsidian_find_path

// pathEnd resolves from/to (or from_title/to_title) to a note id.
func (ix *linkTables) pathEnd(name, ref, alt string) (int, error) {
	switch {
	case strings.TrimSpace(ref) != "" && strings.TrimSpace(alt) != "":
		return 0, fmt.Errorf("give %s or %s_title, not both", name, name)
	case strings.TrimSpace(ref) == "":
		ref = alt
	}
	if strings.TrimSpace(ref) == "" {
		return 0, fmt.Errorf("give %s: a note path, title or alias", name)
	}
	if id, ok := ix.lookup(ref); ok {
		return id, nil
	}
	return 0, ix.notFound(ref)
}

// findPath answers obsidian_find_path.
func (ix *linkTables) findPath(in FindPathInput) (FindPathOutput, error) {
	depth := in.MaxDepth
	switch {
	case depth == 0:
		depth = graph.DefaultMaxDepth
	case depth < 1 || depth > findPathMaxDepth:
		return FindPathOutput{}, fmt.Errorf("max_depth must be between 1 and %d", findPathMaxDepth)
	}
	dir := strings.ToLower(strings.TrimSpace(in.Direction))
	switch dir {
	case "":
		dir = "outbound"
	case "outbound", "any":
	default:
		return FindPathOutput{}, errors.New(`direction must be "outbound" or "any"`)
	}
	from, err := ix.pathEnd("from", in.From, in.FromTitle)
	if err != nil {
		return FindPathOutput{}, err
	}
	to, err := ix.pathEnd("to", in.To, in.ToTitle)
	if err != nil {
		return FindPathOutput{}, err
	}
	opt := graph.PathOptions{MaxDepth: depth, Undirected: dir == "any", FollowEmbeds: linkBoolOr(in.FollowEmbeds, true), MaxPaths: 1}
	if in.IncludeAlternatives {
		opt.MaxPaths = 1 + findPathAlternatives
	}
	res := ix.paths.ShortestPaths(from, to, opt)
	out := FindPathOutput{From: ix.snap.Notes[from].Path, To: ix.snap.Notes[to].Path, Direction: dir,
		Found: res.Hops >= 0, Hops: res.Hops, Path: []PathStep{}, Truncated: res.Truncated}
	for i, p := range res.Paths {
		steps := ix.steps(p, opt)
		if i == 0 {
			out.Path = steps
			continue
		}
		out.Alternatives = append(out.Alternatives, steps)
	}
	return out, nil
}

// steps describes a path of note ids with the links it follows.
func (ix *linkTables) steps(p []int, opt graph.PathOptions) []PathStep {
	out := make([]PathStep, len(p))
	for i, id := range p {
		n := ix.snap.Notes[id]
		out[i] = PathStep{Path: n.Path, Title: n.Title}
		if i == 0 {
			continue
		}
		if e, backward, ok := ix.g.LinkBetween(p[i-1], id, opt.Undirected, opt.FollowEmbeds); ok {
			out[i].Via, out[i].Backward = ix.link(e).Raw, backward
		}
	}
	return out
}

func (s *Server) addFindPath(c *linkCache) {
	in := inputSchema[FindPathInput]()
	setRange(in.Properties["max_depth"], 1, findPathMaxDepth, graph.DefaultMaxDepth)
	in.Properties["include_alternatives"].Default = jsonRaw(`false`)
	linkBoolDefault(in.Properties["follow_embeds"], true)
	in.Properties["direction"].Enum = []any{"outbound", "any"}
	in.Properties["direction"].Default = jsonRaw(`"outbound"`)
	addTool(s, &mcp.Tool{
		Name:         "obsidian_find_path",
		Title:        "Shortest link path between notes",
		Description:  "The shortest chain of links from one note to another (each by path, title or alias), breadth-first up to max_depth hops, with the link text used at every step; optionally up to 10 other shortest paths, ignoring embeds, or treating links as two-way (direction any).",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[FindPathOutput](),
	}, linkHandler(s, c, (*linkTables).findPath))
}
