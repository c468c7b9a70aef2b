package dataview

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// TestRunColumnsShared runs queries twice, concurrently, on one Columns that
// serves every field from its columns, and checks each answer equals the
// direct evaluation's.
func TestRunColumnsShared(t *testing.T) {
	snap, g := fixture(t)
	queries := []string{
		`LIST WHERE status = "done" OR contains(tags, "cook")`,
		`TABLE file.name, file.tags, file.etags, file.inlinks, file.outlinks, file.day, file.mtime, file.mday, file.size, file.aliases, file.folder, file.ext, file.link SORT file.name`,
		`TABLE rating, Rating, STATUS, date, aliases WHERE rating OR date SORT rating DESC, date`,
		`LIST WHERE contains(file, "day") SORT file.day DESC`,
		`TABLE row.status, row["rating"], length(row) WHERE row.rating`,
		`LIST WHERE date(file.link) OR [[Sourdough Bread]].rating = 5 LIMIT 7`,
	}
	render := func(res *Result) string {
		rows := make([][]any, len(res.Rows))
		for i, r := range res.Rows {
			rows[i] = []any{r.Path}
			for _, v := range r.Values {
				rows[i] = append(rows[i], JSON(v))
			}
		}
		raw, _ := json.Marshal(rows)
		return string(raw)
	}
	want := make([]string, len(queries))
	for i, query := range queries {
		res, err := runQuery(t, snap, g, query)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = render(res)
	}
	ix := NewColumns(snap, g, testNow.Location())
	ix.bulkAt = 0
	var wg sync.WaitGroup
	for range 2 {
		for i, query := range queries {
			wg.Go(func() {
				q, err := Parse(query)
				if err != nil {
					t.Error(err)
					return
				}
				res, err := q.RunColumns(context.Background(), ix, testNow)
				if err != nil {
					t.Error(err)
					return
				}
				if got := render(res); got != want[i] {
					t.Errorf("%s:\nindexed %s\n direct %s", query, got, want[i])
				}
			})
		}
	}
	wg.Wait()
	if len(ix.cols) == 0 {
		t.Fatal("no column was built")
	}
}
