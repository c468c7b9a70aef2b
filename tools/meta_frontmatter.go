package tools

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/text/unicode/norm"

	"github.com/enquire-mcp/enquire-mcp/search"
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

// fmQuery is a validated frontmatter search.
type fmQuery struct {
	key    string
	match  func(fmForms) bool
	digest string // identifies the query in its cursors
	after  string // path of the last match of the previous page
	limit  int
}

func (s *Server) addFrontmatterSearch(c *metaCache) {
	in := inputSchema[FrontmatterSearchInput]()
	p := in.Properties
	p["key"].MinLength, p["key"].MaxLength = ptr(1), ptr(maxArgRunes)
	p["exists"].Types, p["exists"].Type, p["exists"].Enum = nil, "boolean", []any{true}
	setAnyOfTypes(p["equals"], "string", "number", "boolean")
	setAnyOfTypes(p["contains"], "string", "number")
	setRange(p["limit"], 1, maxFMLimit, defaultFMLimit)
	addTool(s, &mcp.Tool{
		Name:  "obsidian_frontmatter_search",
		Title: "Find notes by frontmatter",
		Description: "Notes whose frontmatter has a key (exists: true), a value equal to something (equals; the comparison of obsidian_search's filter_frontmatter), " +
			"or a value containing some text (contains). Give exactly one of exists, equals, contains. Returns each note's value; pages with cursor.",
		Annotations:  readOnly(),
		InputSchema:  in,
		OutputSchema: frontmatterSearchOutputSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in FrontmatterSearchInput) (*mcp.CallToolResult, FrontmatterSearchOutput, error) {
		out, err := frontmatterSearch(ctx, c.get(s.engine()), in)
		return nil, out, err
	})
}

// frontmatterSearch runs a validated query over the notes having the key.
func frontmatterSearch(ctx context.Context, d *metaDerived, in FrontmatterSearchInput) (FrontmatterSearchOutput, error) {
	q, err := newFMQuery(in)
	if err != nil {
		return FrontmatterSearchOutput{}, err
	}
	snap := d.eng.Snapshot()
	keep, err := noteFilter(snap, in.Folder)
	if err != nil {
		return FrontmatterSearchOutput{}, err
	}
	out := FrontmatterSearchOutput{Key: q.key, Matches: []FrontmatterMatch{}}
	kn := d.keyIndex()[search.FoldKey(q.key)]
	if kn == nil {
		return out, ctx.Err()
	}
	forms := kn.valueForms(snap)
	for i, e := range kn.entries {
		n := snap.Notes[e.note]
		if keep != nil && !keep(e.note) {
			continue
		}
		v, f, ok := e.lookup(n, q.key, forms[i])
		if !ok || !q.match(f) {
			continue
		}
		out.Total++
		if q.after != "" && n.Path <= q.after {
			continue
		}
		if len(out.Matches) == q.limit {
			if out.NextCursor == "" {
				out.NextCursor = fmCursor(q.digest, out.Matches[len(out.Matches)-1].Path)
			}
			continue
		}
		out.Matches = append(out.Matches, FrontmatterMatch{Path: n.Path, Title: n.Title, Value: v,
			Mtime: n.ModTime.UTC().Format(time.RFC3339)})
	}
	return out, ctx.Err()
}

// newFMQuery validates the arguments.
func newFMQuery(in FrontmatterSearchInput) (fmQuery, error) {
	q := fmQuery{key: norm.NFC.String(strings.TrimSpace(in.Key)), limit: cmp.Or(in.Limit, defaultFMLimit)}
	switch {
	case q.key == "":
		return q, errors.New("key is empty")
	case utf8.RuneCountInString(q.key) > maxArgRunes:
		return q, fmt.Errorf("key is longer than %d characters", maxArgRunes)
	case q.limit < 1 || q.limit > maxFMLimit:
		return q, fmt.Errorf("limit must be between 1 and %d, got %d", maxFMLimit, q.limit)
	}
	mode, match, err := fmCondition(q.key, in)
	if err != nil {
		return q, err
	}
	q.match = match
	q.digest = fmDigest(q.key, mode, in.Folder)
	if in.Cursor != "" {
		if q.after, err = parseFMCursor(in.Cursor, q.digest); err != nil {
			return q, err
		}
	}
	return q, nil
}

// fmCondition builds the one condition given (exists, equals or
// contains); mode names it for cursors.
func fmCondition(key string, in FrontmatterSearchInput) (mode string, match func(fmForms) bool, err error) {
	given := 0
	for _, set := range []bool{in.Exists != nil, in.Equals != nil, in.Contains != nil} {
		if set {
			given++
		}
	}
	switch {
	case given != 1:
		return "", nil, errors.New("give exactly one of exists, equals or contains")
	case in.Exists != nil && !*in.Exists:
		return "", nil, errors.New("exists must be true (it finds the notes that have the key)")
	case in.Exists != nil:
		return "exists", func(fmForms) bool { return true }, nil
	case in.Equals != nil:
		return equalsMatcher(key, in.Equals)
	}
	return containsMatcher(key, in.Contains)
}

func equalsMatcher(key string, want any) (string, func(fmForms) bool, error) {
	eq, err := search.NewFrontmatterEquals(key, want)
	if err != nil {
		return "", nil, err
	}
	c, _ := search.CanonicalValue(want)
	return "equals=" + c, func(f fmForms) bool { return eq.MatchForms(f.canon) }, nil
}

func containsMatcher(key string, want any) (string, func(fmForms) bool, error) {
	var needle string
	switch x := want.(type) {
	case string:
		needle = strings.ToLower(norm.NFC.String(strings.TrimSpace(x)))
	case float64:
		needle, _ = search.CanonicalValue(x)
	default:
		return "", nil, fmt.Errorf("contains must be a string or a number, got %T", want)
	}
	if isTagsKey(key) {
		needle = strings.TrimLeft(needle, "#")
	}
	if needle == "" {
		return "", nil, errors.New("contains is empty (use exists: true to find every note with the key)")
	}
	return "contains=" + needle, func(f fmForms) bool {
		return slices.ContainsFunc(f.lower, func(s string) bool { return strings.Contains(s, needle) })
	}, nil
}

// lowerForms flattens a value into its scalars for contains: strings
// lower-cased (NFC already), other scalars in canonical form; maps and
// nulls add nothing.
func lowerForms(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, lowerForms(e)...)
		}
		return out
	case string:
		return []string{strings.ToLower(x)}
	}
	if c, ok := search.CanonicalValue(v); ok {
		return []string{c}
	}
	return nil
}

func isTagsKey(k string) bool {
	k = strings.ToLower(k)
	return k == "tags" || k == "tag"
}

// Cursors are "fm1:<digest>:<last path>", base64url-encoded; the digest
// ties a cursor to the query that made it.
const fmCursorVersion = "fm1:"

func fmDigest(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

func fmCursor(digest, lastPath string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(fmCursorVersion + digest + ":" + lastPath))
}

func parseFMCursor(cursor, digest string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	rest, ok := strings.CutPrefix(string(raw), fmCursorVersion)
	if err != nil || !ok {
		return "", errors.New("invalid cursor: pass next_cursor from the previous page unchanged")
	}
	d, last, ok := strings.Cut(rest, ":")
	if !ok || last == "" {
		return "", errors.New("invalid cursor: pass next_cursor from the previous page unchanged")
	}
	if d != digest {
		return "", errors.New("cursor belongs to a different query (key, condition or folder changed)")
	}
	return last, nil
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
