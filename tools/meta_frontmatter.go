package tools

import (
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/fmsearch"
)

// FrontmatterSearchInput is the obsidian_frontmatter_search request.
type FrontmatterSearchInput struct {
	Key      string `json:"key" jsonschema:"Frontmatter key, matched case-insensitively (exact spelling first)."`
	Exists   *bool  `json:"exists,omitempty" jsonschema:"true: every note that has the key, whatever its value."`
	Equals   any    `json:"equals,omitempty" jsonschema:"Notes whose value equals this, compared like obsidian_search's filter_frontmatter: strings trimmed and case-insensitive, numbers by value (2024 = 2024.0 = \"2024\"), a list value matches by membership, a [[link]] value also by the linked note's name or path; tags and aliases compare as the note's parsed lists (\"a, b\" = [a, b]), # ignored on tags."`
	Contains any    `json:"contains,omitempty" jsonschema:"Notes whose value (or an element of a list value, tags and aliases parsed as for equals) contains this text, case-insensitively."`
	Folder   string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	Limit    int    `json:"limit,omitempty" jsonschema:"Matches per page (1-1000, default 100)."`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, to continue."`
}

// FrontmatterSearchOutput lists notes whose frontmatter matches.
type FrontmatterSearchOutput struct {
	Key        string             `json:"key"`
	Total      int                `json:"total" jsonschema:"Matching notes over all pages."`
	Matches    []FrontmatterMatch `json:"matches" jsonschema:"Ordered by path."`
	NextCursor string             `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

// FrontmatterMatch is one note and its value of the key.
type FrontmatterMatch struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Value any    `json:"value" jsonschema:"The note's value of the key, as decoded from YAML."`
	Mtime string `json:"mtime" jsonschema:"Last modification time, RFC 3339 UTC."`
}

func (s *Server) addFrontmatterSearch(c *metaCache) {
	in := inputSchema[FrontmatterSearchInput]()
	p := in.Properties
	p["key"].MinLength, p["key"].MaxLength = ptr(1), ptr(fmsearch.MaxKeyRunes)
	p["exists"].Types, p["exists"].Type, p["exists"].Enum = nil, "boolean", []any{true}
	setAnyOfTypes(p["equals"], "string", "number", "boolean")
	setAnyOfTypes(p["contains"], "string", "number")
	setRange(p["limit"], 1, fmsearch.MaxLimit, fmsearch.DefaultLimit)
	addTool(s, &mcp.Tool{
		Name:  "obsidian_frontmatter_search",
		Title: "Find notes by frontmatter",
		Description: "Notes whose frontmatter has a key (exists: true), a value equal to something (equals; the comparison of obsidian_search's filter_frontmatter), " +
			"or a value containing some text (contains). Give exactly one of exists, equals, contains. Returns each note's value; pages with cursor.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: frontmatterSearchOutputSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in FrontmatterSearchInput) (*mcp.CallToolResult, FrontmatterSearchOutput, error) {
		out, err := frontmatterSearch(ctx, c.get(s.engine()).frontmatterIndex(), in)
		return nil, out, err
	})
}

// frontmatterSearch maps an obsidian_frontmatter_search request onto the
// frontmatter index.
func frontmatterSearch(ctx context.Context, x *fmsearch.Searcher, in FrontmatterSearchInput) (FrontmatterSearchOutput, error) {
	r, err := x.Search(ctx, fmsearch.Query{Key: in.Key, Exists: in.Exists, Equals: in.Equals, Contains: in.Contains,
		Folder: in.Folder, Limit: in.Limit, Cursor: in.Cursor})
	if r == nil {
		return FrontmatterSearchOutput{}, err
	}
	out := FrontmatterSearchOutput{Key: r.Key, Total: r.Total, Matches: make([]FrontmatterMatch, len(r.Matches)), NextCursor: r.NextCursor}
	for i, m := range r.Matches {
		out.Matches[i] = FrontmatterMatch{Path: m.Note.Path, Title: m.Note.Title, Value: m.Value,
			Mtime: m.Note.ModTime.UTC().Format(time.RFC3339)}
	}
	return out, err
}

// frontmatterSearchOutputSchema gives each match's value (any YAML value)
// an explicit anyOf of every JSON type: a property without a type is
// rejected by clients with a single-type schema dialect.
func frontmatterSearchOutputSchema() *jsonschema.Schema {
	s := outputSchema[FrontmatterSearchOutput]()
	v := s.Properties["matches"].Items.Properties["value"]
	setAnyOfTypes(v, "string", "number", "boolean", "array", "object", "null")
	return s
}
