package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Limits of the note listing tools.
const (
	listNotesDefault   = 50
	listNotesMax       = 500
	recentEditsDefault = 20
	recentEditsMax     = 200
	// maxSinceMinutes (100 years) keeps since_minutes from overflowing.
	maxSinceMinutes = 100 * 366 * 24 * 60
)

// ListNotesInput filters, sorts and pages the vault's notes.
type ListNotesInput struct {
	Folder            string         `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder, e.g. Projects/2026."`
	Tag               string         `json:"tag,omitempty" jsonschema:"Only notes with this tag (with or without #, case-insensitive); a parent tag matches its nested tags."`
	ModifiedSince     string         `json:"modified_since,omitempty" jsonschema:"Only notes modified at or after this time: RFC 3339 (2026-03-10T14:00:00Z) or a date (2026-03-10, local midnight)."`
	ModifiedBefore    string         `json:"modified_before,omitempty" jsonschema:"Only notes modified strictly before this time: RFC 3339 or a date (local midnight)."`
	SinceDate         string         `json:"since_date,omitempty" jsonschema:"Alias of modified_since, for clients of other Obsidian servers."`
	FilterFrontmatter map[string]any `json:"filter_frontmatter,omitempty" jsonschema:"Keep notes whose frontmatter matches every key, as in obsidian_search: a value is a string, number, boolean or an array of those (any of them); list values match by membership; strings compare case-insensitively; a [[link]] also matches the linked note's name or path; a note without the key is excluded."`
	Sort              string         `json:"sort,omitempty" jsonschema:"mtime (default), title or path."`
	Order             string         `json:"order,omitempty" jsonschema:"asc or desc; default desc (newest first) for mtime, asc for title and path."`
	Limit             int            `json:"limit,omitempty" jsonschema:"Notes per page (1-500, default 50)."`
	Cursor            string         `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with otherwise the same arguments."`
	IncludePDFs       bool           `json:"include_pdfs,omitempty" jsonschema:"Also list indexed PDFs (kind pdf); default markdown notes only."`
}

// ListNotesOutput is one page of notes.
type ListNotesOutput struct {
	Total      int        `json:"total" jsonschema:"Notes matching every filter, over all pages."`
	Notes      []NoteItem `json:"notes"`
	NextCursor string     `json:"next_cursor" jsonschema:"Pass as cursor for the next page; empty on the last page."`
}

// NoteItem describes one note in a listing.
type NoteItem struct {
	Path        string         `json:"path" jsonschema:"Vault-relative path."`
	Title       string         `json:"title"`
	Tags        []string       `json:"tags"`
	Frontmatter map[string]any `json:"frontmatter"`
	Mtime       string         `json:"mtime" jsonschema:"Last modification time, RFC 3339."`
	AgeDays     int            `json:"age_days" jsonschema:"Whole days since the last modification."`
	Size        int64          `json:"size" jsonschema:"File size in bytes."`
	Kind        string         `json:"kind" jsonschema:"md or pdf."`
}

// RecentEditsInput selects the recently modified notes.
type RecentEditsInput struct {
	SinceMinutes int    `json:"since_minutes,omitempty" jsonschema:"Only notes modified in the last N minutes."`
	Since        string `json:"since,omitempty" jsonschema:"Only notes modified at or after this time: RFC 3339 or a date (local midnight). Give since or since_minutes, not both; neither: the newest notes."`
	Folder       string `json:"folder,omitempty" jsonschema:"Only notes under this vault-relative folder."`
	Limit        int    `json:"limit,omitempty" jsonschema:"Notes returned (1-200, default 20)."`
	IncludePDFs  bool   `json:"include_pdfs,omitempty" jsonschema:"Also list indexed PDFs; default markdown notes only."`
}

// RecentEditsOutput lists notes newest first.
type RecentEditsOutput struct {
	Since string     `json:"since,omitempty" jsonschema:"The cutoff applied, RFC 3339 (absent without one)."`
	Total int        `json:"total" jsonschema:"Notes modified in the window (before the cut to limit)."`
	Notes []NoteItem `json:"notes" jsonschema:"Newest first."`
}

// noteQuery is a validated listing request.
type noteQuery struct {
	folder      string
	tag         string
	since       time.Time // zero: no lower bound
	before      time.Time // zero: no upper bound
	filter      search.FrontmatterFilter
	includePDFs bool
}

// match reports whether a note passes the query; tags are its
// lower-cased tags.
func (q noteQuery) match(n *vault.Note, tags []string) bool {
	switch {
	case n.Kind == vault.KindPDF && !q.includePDFs:
		return false
	case !search.InFolder(n.Path, q.folder):
		return false
	case q.tag != "" && !hasTag(tags, q.tag):
		return false
	case !q.since.IsZero() && n.ModTime.Before(q.since):
		return false
	case !q.before.IsZero() && !n.ModTime.Before(q.before):
		return false
	}
	return q.filter.Match(n)
}

// parseTime reads an RFC 3339 time or a date (midnight in loc).
func parseTime(arg, v string, loc *time.Location) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%s: cannot parse %s; use RFC 3339 (2026-03-10T14:00:00Z) or a date (2026-03-10)", arg, quote(v))
}

func (s *Server) noteQuery(in ListNotesInput, now time.Time) (noteQuery, error) {
	folder, err := search.NormalizeFolder(in.Folder)
	if err != nil {
		return noteQuery{}, err
	}
	filter, err := search.ParseFrontmatterFilter(in.FilterFrontmatter)
	if err != nil {
		return noteQuery{}, err
	}
	q := noteQuery{folder: folder, filter: filter, includePDFs: in.IncludePDFs,
		tag: strings.ToLower(strings.TrimPrefix(strings.TrimSpace(in.Tag), "#"))}
	since := in.ModifiedSince
	if since == "" {
		since = in.SinceDate
	}
	if since != "" {
		if q.since, err = parseTime("modified_since", since, now.Location()); err != nil {
			return noteQuery{}, err
		}
	}
	if in.ModifiedBefore != "" {
		if q.before, err = parseTime("modified_before", in.ModifiedBefore, now.Location()); err != nil {
			return noteQuery{}, err
		}
	}
	if !q.since.IsZero() && !q.before.IsZero() && !q.since.Before(q.before) {
		return noteQuery{}, fmt.Errorf("modified_since (%s) must be before modified_before (%s)",
			q.since.Format(time.RFC3339), q.before.Format(time.RFC3339))
	}
	return q, nil
}

// listOrder is a validated sort and direction.
type listOrder struct {
	key  sortKey
	desc bool
}

func parseOrder(sortArg, orderArg string) (listOrder, error) {
	var o listOrder
	switch strings.ToLower(strings.TrimSpace(sortArg)) {
	case "", "mtime", "modified":
		o = listOrder{key: byMtime, desc: true}
	case "title":
		o.key = byTitle
	case "path":
		o.key = byPath
	default:
		return o, fmt.Errorf("sort must be mtime, title or path, got %s", quote(sortArg))
	}
	switch strings.ToLower(strings.TrimSpace(orderArg)) {
	case "":
	case "asc":
		o.desc = false
	case "desc":
		o.desc = true
	default:
		return o, fmt.Errorf("order must be asc or desc, got %s", quote(orderArg))
	}
	return o, nil
}

func checkLimit(limit, def, hi int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 1 || limit > hi {
		return 0, fmt.Errorf("limit must be between 1 and %d, got %d", hi, limit)
	}
	return limit, nil
}

func noteItem(n *vault.Note, now time.Time) NoteItem {
	fm := n.Frontmatter
	if fm == nil {
		fm = map[string]any{}
	}
	return NoteItem{Path: n.Path, Title: n.Title, Tags: nonNil(n.Tags), Frontmatter: fm,
		Mtime: n.ModTime.UTC().Format(time.RFC3339), AgeDays: ageDays(n.ModTime, now),
		Size: n.Size, Kind: n.Kind}
}

// ageDays counts whole days from t to now (never negative).
func ageDays(t, now time.Time) int { return max(0, int(now.Sub(t)/(24*time.Hour))) }

func (s *Server) listNotes(ctx context.Context, orders *noteOrderCache, in ListNotesInput) (ListNotesOutput, error) {
	e := s.engine()
	now := e.Now()
	q, err := s.noteQuery(in, now)
	if err != nil {
		return ListNotesOutput{}, err
	}
	o, err := parseOrder(in.Sort, in.Order)
	if err != nil {
		return ListNotesOutput{}, err
	}
	limit, err := checkLimit(in.Limit, listNotesDefault, listNotesMax)
	if err != nil {
		return ListNotesOutput{}, err
	}
	fp := fingerprint(q, o, in.FilterFrontmatter)
	offset, err := decodeListCursor(in.Cursor, fp)
	if err != nil {
		return ListNotesOutput{}, err
	}
	out := ListNotesOutput{Notes: []NoteItem{}}
	notes, ord := e.Snapshot().Notes, orders.get(e)
	tags := ord.lowerTags()
	for i, id := range ord.walk(o) {
		if i%4096 == 0 && ctx.Err() != nil {
			return ListNotesOutput{}, ctx.Err()
		}
		n := notes[id]
		if !q.match(n, tags[id]) {
			continue
		}
		if out.Total >= offset && len(out.Notes) < limit {
			out.Notes = append(out.Notes, noteItem(n, now))
		}
		out.Total++
	}
	if next := offset + len(out.Notes); next < out.Total {
		out.NextCursor = encodeListCursor(next, fp)
	}
	return out, nil
}

func (s *Server) recentEdits(ctx context.Context, orders *noteOrderCache, in RecentEditsInput) (RecentEditsOutput, error) {
	e := s.engine()
	now := e.Now()
	limit, err := checkLimit(in.Limit, recentEditsDefault, recentEditsMax)
	if err != nil {
		return RecentEditsOutput{}, err
	}
	folder, err := search.NormalizeFolder(in.Folder)
	if err != nil {
		return RecentEditsOutput{}, err
	}
	q := noteQuery{folder: folder, includePDFs: in.IncludePDFs}
	switch {
	case in.SinceMinutes != 0 && in.Since != "":
		return RecentEditsOutput{}, errors.New("give since or since_minutes, not both")
	case in.SinceMinutes < 0 || in.SinceMinutes > maxSinceMinutes:
		return RecentEditsOutput{}, fmt.Errorf("since_minutes must be between 1 and %d, got %d", maxSinceMinutes, in.SinceMinutes)
	case in.SinceMinutes > 0:
		q.since = now.Add(-time.Duration(in.SinceMinutes) * time.Minute)
	case in.Since != "":
		if q.since, err = parseTime("since", in.Since, now.Location()); err != nil {
			return RecentEditsOutput{}, err
		}
	}
	out := RecentEditsOutput{Notes: []NoteItem{}}
	if !q.since.IsZero() {
		out.Since = q.since.UTC().Format(time.RFC3339)
	}
	notes := e.Snapshot().Notes
	for i, id := range orders.get(e).walk(listOrder{key: byMtime, desc: true}) {
		if i%4096 == 0 && ctx.Err() != nil {
			return RecentEditsOutput{}, ctx.Err()
		}
		n := notes[id]
		if !q.since.IsZero() && n.ModTime.Before(q.since) {
			break // newest first: everything after is older
		}
		if !q.match(n, nil) { // no tag filter here
			continue
		}
		if len(out.Notes) < limit {
			out.Notes = append(out.Notes, noteItem(n, now))
		}
		out.Total++
	}
	return out, nil
}

func listNotesInputSchema() *jsonschema.Schema {
	s := inputSchema[ListNotesInput]()
	p := s.Properties
	setRange(p["limit"], 1, listNotesMax, listNotesDefault)
	p["sort"].Enum = []any{"mtime", "title", "path"}
	p["sort"].Default = jsonRaw(`"mtime"`)
	p["order"].Enum = []any{"asc", "desc"}
	p["filter_frontmatter"].AdditionalProperties = frontmatterFilterValue()
	return s
}

func recentEditsInputSchema() *jsonschema.Schema {
	s := inputSchema[RecentEditsInput]()
	setRange(s.Properties["limit"], 1, recentEditsMax, recentEditsDefault)
	s.Properties["since_minutes"].Minimum = ptr(1.0)
	s.Properties["since_minutes"].Maximum = ptr(float64(maxSinceMinutes))
	return s
}

func noteItemsSchema[T any]() *jsonschema.Schema {
	s := outputSchema[T]()
	s.Properties["notes"].Items.Properties["kind"].Enum = []any{vault.KindMarkdown, vault.KindPDF}
	return s
}

// addNoteTools registers obsidian_list_notes and obsidian_get_recent_edits.
func (s *Server) addNoteTools() {
	orders := &noteOrderCache{}
	addTool(s, &mcp.Tool{
		Name:  "obsidian_list_notes",
		Title: "List notes",
		Description: "List notes with their title, tags, frontmatter, modification time, age and size, filtered by folder, tag (nested tags included), " +
			"modification time window and frontmatter (as obsidian_search), sorted by mtime (newest first by default), title or path, paged with limit and cursor.",
		Annotations:  readOnly(),
		InputSchema:  listNotesInputSchema(),
		OutputSchema: noteItemsSchema[ListNotesOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ListNotesInput) (*mcp.CallToolResult, ListNotesOutput, error) {
		out, err := s.listNotes(ctx, orders, in)
		return nil, out, err
	})
	addTool(s, &mcp.Tool{
		Name:         "obsidian_get_recent_edits",
		Title:        "Recently edited notes",
		Description:  "The most recently modified notes, newest first, optionally within the last since_minutes (or since a time) and under a folder: path, title, tags, frontmatter, mtime, age and size.",
		Annotations:  readOnly(),
		InputSchema:  recentEditsInputSchema(),
		OutputSchema: noteItemsSchema[RecentEditsOutput](),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in RecentEditsInput) (*mcp.CallToolResult, RecentEditsOutput, error) {
		out, err := s.recentEdits(ctx, orders, in)
		return nil, out, err
	})
}
