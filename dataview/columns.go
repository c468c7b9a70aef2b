package dataview

import (
	"context"
	"sync"
	"time"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

const (
	// bulkRows is how many pages a step must run over before it uses (and
	// builds) the index's columns; smaller steps compute values directly.
	bulkRows = 1024
	// maxColumns bounds the columns an index keeps (queries name fields
	// freely).
	maxColumns = 48
)

// Columns holds what queries over one snapshot can share: for a field
// (frontmatter name or file.*) the Dataview value of every note, built the
// first time a query scans many notes for it. Build one per snapshot and
// time zone and reuse it; it is safe for concurrent use.
type Columns struct {
	conv   *conv
	bulkAt int // see bulkRows
	mu     sync.Mutex
	cols   map[string]*column
}

type column struct {
	once sync.Once
	vals []Value
}

// NewColumns prepares the columns of a snapshot and its link graph; loc is
// the zone of dates written without one (the zone of the queries' now).
func NewColumns(snap *vault.Snapshot, g *graph.Graph, loc *time.Location) *Columns {
	return &Columns{conv: &conv{snap: snap, g: g, loc: loc}, bulkAt: bulkRows, cols: map[string]*column{}}
}

// Snapshot returns the snapshot the index was built for.
func (ix *Columns) Snapshot() *vault.Snapshot { return ix.conv.snap }

// column returns the values of key for every note (nil for PDFs), building
// them once; nil when c is not the index's converter or the index is full.
func (ix *Columns) column(key string, c *conv, build func(c *conv, i int) Value) []Value {
	if c != ix.conv {
		return nil
	}
	ix.mu.Lock()
	col, ok := ix.cols[key]
	if !ok {
		if len(ix.cols) >= maxColumns {
			ix.mu.Unlock()
			return nil
		}
		col = &column{}
		ix.cols[key] = col
	}
	ix.mu.Unlock()
	col.once.Do(func() {
		vals := make([]Value, len(c.snap.Notes))
		for i := range vals {
			if c.isPage(i) {
				vals[i] = build(c, i)
			}
		}
		col.vals = vals
	})
	return col.vals
}

// Run evaluates the query over the markdown notes of a snapshot (PDFs are
// not Dataview pages). now is the current time; its location is the time
// zone of dates without one (date(today), frontmatter dates, file.mtime).
// To share work between queries on the same snapshot, use RunColumns.
func (q *Query) Run(ctx context.Context, snap *vault.Snapshot, g *graph.Graph, now time.Time) (*Result, error) {
	return q.RunColumns(ctx, NewColumns(snap, g, now.Location()), now)
}
