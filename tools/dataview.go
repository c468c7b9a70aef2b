package tools

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/dataview"
	"github.com/enquire-mcp/enquire-mcp/search"
)

// maxDataviewQuery caps the query text (characters).
const maxDataviewQuery = 8192

// DataviewInput is an obsidian_dataview_query request.
type DataviewInput struct {
	Query string `json:"query" jsonschema:"A Dataview (DQL) query: LIST [expr] or TABLE [WITHOUT ID] expr [AS \"Name\"], …; then optionally FROM \"folder\" | #tag | [[note]] | outgoing([[note]]) (combined with and/or/-/parentheses), WHERE, SORT expr [ASC|DESC], LIMIT n, in any order."`
}

// DataviewOutput is the query's answer.
type DataviewOutput struct {
	Query     string        `json:"query"`
	Type      string        `json:"type" jsonschema:"list or table."`
	Columns   []string      `json:"columns" jsonschema:"Names of the values of each row: the TABLE columns (AS name or expression text), the LIST expression, or none for a plain LIST."`
	Rows      []DataviewRow `json:"rows" jsonschema:"Matching notes in query order (vault path order unless sorted)."`
	Total     int           `json:"total" jsonschema:"Rows the query produced, before the cap of 1000 rows."`
	Truncated bool          `json:"truncated" jsonschema:"More than 1000 rows matched; add LIMIT or narrow the query."`
	Warnings  []string      `json:"warnings,omitempty" jsonschema:"Why an answer may surprise: a FROM folder that does not exist, a link resolving to no note, notes left out because an expression failed on them."`
}

// DataviewRow is one note of the answer.
type DataviewRow struct {
	Path   string         `json:"path" jsonschema:"Vault-relative path."`
	Title  string         `json:"title"`
	Values map[string]any `json:"values" jsonschema:"Column name → value. Dates are YYYY-MM-DD (midnight) or RFC 3339, durations as Dataview shows them (\"7 days\"), links as [[path|display]], missing fields null."`
}

func dataviewInputSchema() *jsonschema.Schema {
	s := inputSchema[DataviewInput]()
	s.Properties["query"].MinLength, s.Properties["query"].MaxLength = ptr(1), ptr(maxDataviewQuery)
	return s
}

func dataviewOutputSchema() *jsonschema.Schema {
	s := outputSchema[DataviewOutput]()
	s.Properties["type"].Enum = []any{dataview.TypeList, dataview.TypeTable}
	return s
}

const dataviewDescription = "Run a Dataview (DQL) query over the vault's markdown notes and frontmatter, as the Obsidian Dataview plugin would answer it. " +
	"Supported: LIST [expr] and TABLE [WITHOUT ID] expr [AS \"Name\"], …; FROM \"folder\" (with subfolders, or one note's path), #tag (nested tags too), [[note]] (notes linking to it), outgoing([[note]]), combined with and/or, - or ! (not) and parentheses; " +
	"WHERE, SORT expr [ASC|DESC] (several keys), LIMIT n, in any order and number. " +
	"Expressions: = != < > <= >=, and/or (same precedence, left to right: use parentheses), !, + - * / %, fields (case-insensitive, a.b for nested maps, row[\"key\"]), " +
	"file.name/path/folder/ext/size/link/mtime/mday/tags/etags/aliases/inlinks/outlinks/day, literals \"text\", 12, true, null, date(2024-01-31), date(today|now|yesterday|tomorrow|sow|eow|som|eom|soy|eoy), dur(7 days), [[note]], [list]; " +
	"functions contains, icontains, econtains, length, lower, upper, startswith, endswith, date, dur, number, default, choice, striptime. " +
	"Dataview semantics: a missing field is null, and null sorts and compares below every value (WHERE due < date(today) includes notes without due; write WHERE due AND due < date(today)); frontmatter text that is a date, duration or [[link]] becomes one. " +
	"Only frontmatter is indexed (not inline key:: value fields); file.ctime, tasks, GROUP BY, FLATTEN, TASK, CALENDAR, lambdas, other functions and JavaScript are refused with an error naming the part and its line and column. " +
	"Returns {query, type, columns, rows:[{path, title, values:{column: value}}], total, truncated, warnings}; at most 1000 rows."

// dataviewCache keeps the query index of the current engine: field values
// computed for every note are shared by later queries until the vault
// changes (a new engine) or the time zone does.
type dataviewCache struct{ perEngine[dataviewColumns] }

type dataviewColumns struct {
	mu  sync.Mutex
	loc *time.Location
	ix  *dataview.Columns
}

// get returns e's index for times in loc (the zone of the engine's clock;
// should it change, the index is rebuilt for the new zone).
func (c *dataviewCache) get(e *search.Engine, loc *time.Location) *dataview.Columns {
	d := c.derive(e, func(*search.Engine) *dataviewColumns { return &dataviewColumns{} })
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ix == nil || d.loc != loc {
		d.loc, d.ix = loc, dataview.NewColumns(e.Snapshot(), e.Graph(), loc)
	}
	return d.ix
}

func (s *Server) addDataview() {
	cache := &dataviewCache{}
	addTool(s, &mcp.Tool{
		Name:         "obsidian_dataview_query",
		Title:        "Dataview query",
		Description:  dataviewDescription,
		Annotations:  readOnly(),
		InputSchema:  dataviewInputSchema(),
		OutputSchema: dataviewOutputSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in DataviewInput) (*mcp.CallToolResult, DataviewOutput, error) {
		return s.dataviewQuery(ctx, cache, in)
	})
}

func (s *Server) dataviewQuery(ctx context.Context, cache *dataviewCache, in DataviewInput) (*mcp.CallToolResult, DataviewOutput, error) {
	q, err := dataview.Parse(in.Query)
	if err != nil {
		return nil, DataviewOutput{}, err
	}
	e := s.engine()
	now := e.Now()
	res, err := q.RunColumns(ctx, cache.get(e, now.Location()), now)
	if err != nil {
		var qe *dataview.Error
		if errors.As(err, &qe) || ctx.Err() != nil {
			return nil, DataviewOutput{}, err
		}
		return nil, DataviewOutput{}, s.internal("obsidian_dataview_query", err)
	}
	return nil, newDataviewOutput(in.Query, res), nil
}

func newDataviewOutput(query string, res *dataview.Result) DataviewOutput {
	out := DataviewOutput{
		Query: query, Type: res.Type, Columns: nonNil(res.Columns), Rows: make([]DataviewRow, len(res.Rows)),
		Total: res.Total, Truncated: res.Truncated, Warnings: res.Warnings,
	}
	for i, r := range res.Rows {
		row := DataviewRow{Path: r.Path, Title: r.Title, Values: make(map[string]any, len(r.Values))}
		for j, v := range r.Values {
			row.Values[res.Columns[j]] = dataview.JSON(v)
		}
		out.Rows[i] = row
	}
	return out
}
