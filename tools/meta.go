package tools

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of the metadata tools.
const (
	maxTagLimit      = 2000
	defaultTagLimit  = 200
	maxArgRunes      = 256 // tag prefixes
	tagSortCount     = "count"
	tagSortName      = "name"
	maxTopTags       = 50
	defaultTopTags   = 10
	recentWindowDays = 7
)

// addMetaTools registers the vault metadata tools (tags, frontmatter,
// stats) and the literal text search; they share one per-engine cache.
func (s *Server) addMetaTools() {
	c := &metaCache{}
	s.addListTags(c)
	s.addFrontmatterSearch(c)
	s.addStats(c)
	s.addSearchText(c)
}

// ListTagsInput is the obsidian_list_tags request.
type ListTagsInput struct {
	Folder   string `json:"folder,omitempty" jsonschema:"Only count notes under this vault-relative folder."`
	Prefix   string `json:"prefix,omitempty" jsonschema:"Only this tag and the tags nested under it, e.g. project lists project, project/a, project/a/b (case-insensitive, # optional)."`
	MinCount int    `json:"min_count,omitempty" jsonschema:"Only tags on at least this many notes (count, nested tags included; default 1)."`
	Limit    int    `json:"limit,omitempty" jsonschema:"Number of tags to return (1-2000, default 200)."`
	Sort     string `json:"sort,omitempty" jsonschema:"count (default): most used first, then by name; name: alphabetical."`
}

// ListTagsOutput lists tags with their note counts.
type ListTagsOutput struct {
	Total int            `json:"total" jsonschema:"Tags that pass the filters, before the cut to limit."`
	Tags  []ListTagEntry `json:"tags"`
}

// ListTagEntry is one tag and how many notes carry it.
type ListTagEntry struct {
	Tag              string `json:"tag" jsonschema:"The tag in lower case, NFC, without #; nested tags use /."`
	Count            int    `json:"count" jsonschema:"Notes carrying the tag or a tag nested under it (each note counts once)."`
	DirectCount      int    `json:"direct_count" jsonschema:"Notes carrying exactly this tag; 0 for a parent that only exists through nested tags."`
	FrontmatterCount int    `json:"frontmatter_count" jsonschema:"Of count: notes with the tag (or a nested one) in their frontmatter tags."`
	InlineCount      int    `json:"inline_count" jsonschema:"Of count: the other notes, tagged only inline (#tag in the text); frontmatter_count + inline_count = count."`
	ChildrenCount    int    `json:"children_count" jsonschema:"Distinct tags one level below (project/a and project/b for project)."`
}

func (s *Server) addListTags(c *metaCache) {
	in := inputSchema[ListTagsInput]()
	p := in.Properties
	setRange(p["limit"], 1, maxTagLimit, defaultTagLimit)
	p["min_count"].Minimum, p["min_count"].Default = ptr(1.0), jsonRaw("1")
	p["prefix"].MaxLength = ptr(maxArgRunes)
	p["sort"].Enum, p["sort"].Default = []any{tagSortCount, tagSortName}, jsonRaw(`"count"`)
	addTool(s, &mcp.Tool{
		Name:  "obsidian_list_tags",
		Title: "List tags",
		Description: "Every tag of the vault (frontmatter tags and inline #tags, case-insensitive) with the number of notes carrying it. " +
			"Nested tags roll up: a note tagged a/b/c counts for a/b/c, a/b and a (count), while direct_count counts exact tags only. " +
			"Filter by folder, by tag prefix (a subtree) and by minimum count; sort by count or name.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: outputSchema[ListTagsOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ListTagsInput) (*mcp.CallToolResult, ListTagsOutput, error) {
		out, err := listTags(c.get(s.engine()), in)
		return nil, out, err
	})
}

// listTags filters, sorts and cuts the tag counts.
func listTags(d *metaDerived, in ListTagsInput) (ListTagsOutput, error) {
	in.Limit = cmp.Or(in.Limit, defaultTagLimit)
	in.MinCount = cmp.Or(in.MinCount, 1)
	in.Sort = cmp.Or(in.Sort, tagSortCount)
	switch {
	case in.Limit < 1 || in.Limit > maxTagLimit:
		return ListTagsOutput{}, errors.New("limit must be between 1 and 2000")
	case in.MinCount < 1:
		return ListTagsOutput{}, errors.New("min_count must be at least 1")
	case in.Sort != tagSortCount && in.Sort != tagSortName:
		return ListTagsOutput{}, errors.New(`sort must be "count" or "name"`)
	}
	keep, err := search.FolderFilter(d.eng.Snapshot(), in.Folder)
	if err != nil {
		return ListTagsOutput{}, err
	}
	prefix := vault.FoldTag(in.Prefix)
	var tags []vault.TagCount
	for _, t := range d.tagIndex().Counts(keep) {
		if t.Count >= in.MinCount && underTag(t.Tag, prefix) {
			tags = append(tags, t)
		}
	}
	if in.Sort == tagSortCount {
		slices.SortStableFunc(tags, func(a, b vault.TagCount) int { return b.Count - a.Count }) // ties stay by name
	}
	out := ListTagsOutput{Total: len(tags), Tags: make([]ListTagEntry, 0, min(len(tags), in.Limit))}
	for _, t := range tags[:min(len(tags), in.Limit)] {
		out.Tags = append(out.Tags, listTagEntry(t))
	}
	return out, nil
}

func listTagEntry(t vault.TagCount) ListTagEntry {
	return ListTagEntry{Tag: t.Tag, Count: t.Count, DirectCount: t.Direct, FrontmatterCount: t.Frontmatter,
		InlineCount: t.Inline, ChildrenCount: t.Children}
}

// underTag reports whether tag is prefix or nested under it ("" matches
// every tag).
func underTag(tag, prefix string) bool {
	return prefix == "" || tag == prefix || strings.HasPrefix(tag, prefix+"/")
}
