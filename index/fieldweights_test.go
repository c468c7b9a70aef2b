package index

import (
	"math"
	"testing"
)

// TestColumnWeightsFromFieldWeights: BM25's column weights are made of
// the per-field weights TF-IDF uses too, so the two cannot diverge; each
// column takes its own field's weight, the cjk column the body's.
func TestColumnWeightsFromFieldWeights(t *testing.T) {
	distinct := FieldWeights{Title: 11, Aliases: 13, Headings: 17, Tags: 19, Properties: 23, Body: 29}
	want := map[string]uint32{"title": 11, "aliases": 13, "headings": 17, "tags": 19, "body": 29, "cjk": 29}
	got := columnWeightsOf(distinct)
	if len(got) != len(want) {
		t.Fatalf("%d columns, want %d", len(got), len(want))
	}
	for _, c := range got {
		if c.weight != want[c.name] {
			t.Errorf("column %s weighs %d, want %d", c.name, c.weight, want[c.name])
		}
	}
	if columnWeights != columnWeightsOf(DefaultFieldWeights()) {
		t.Errorf("columnWeights %v are not DefaultFieldWeights' %v", columnWeights, columnWeightsOf(DefaultFieldWeights()))
	}
	fw := DefaultFieldWeights()
	for _, w := range []float32{fw.Title, fw.Aliases, fw.Headings, fw.Tags, fw.Properties, fw.Body} {
		if w < 1 || float64(w) != math.Trunc(float64(w)) {
			t.Errorf("field weight %v: BM25's weighted counts need a positive integer", w)
		}
	}
}

// TestFTSColumns pins the FTS5 table's columns and the statements made
// from them: a change here changes the index file, so it needs a new
// SchemaVersion.
func TestFTSColumns(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"columns", ftsColumns, "title, aliases, headings, tags, body, cjk"},
		{"insert", ftsInsert, "INSERT INTO fts(rowid, title, aliases, headings, tags, body, cjk) VALUES (?, ?, ?, ?, ?, ?, ?)"},
		{"row text", rowTextSQL, "SELECT title, aliases, headings, tags, body, cjk FROM fts WHERE rowid = ?"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q (bump SchemaVersion when the table changes)", c.name, c.got, c.want)
		}
	}
}
