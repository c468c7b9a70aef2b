package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fts5Params are the k1 and b FTS5's bm25() hard-codes (fts5_aux.c):
// with them, Search must give exactly what bm25() gives (referenceSQL).
var fts5Params = BM25Params{K1: 1.2, B: 0.75}

// lowB are FTS5's k1 with a weaker length normalisation (b = 0.3):
// parameters bm25() cannot compute, which both of Search's paths must
// still agree on.
var lowB = BM25Params{K1: 1.2, B: 0.3}

// referenceSQL is the plain form of Search's query with FTS5's own
// bm25() and the index's column weights: every matching row joined and
// sorted in full. Search at fts5Params must return a prefix of its order.
func referenceSQL() string {
	w := make([]string, len(columnWeights))
	for i, c := range columnWeights {
		w[i] = fmt.Sprintf("%d.0", c.weight)
	}
	return `SELECT c.path, c.idx, c.page, c.line_start, c.line_end, -bm25(fts, ` + strings.Join(w, ", ") + `) AS score, f.hash
	FROM fts JOIN chunks c ON c.id = fts.rowid JOIN files f ON f.path = c.path
	WHERE fts MATCH ? ORDER BY score DESC, c.path, c.idx`
}

func referenceSearch(t *testing.T, ix *Index, query string) []Hit {
	t.Helper()
	expr := MatchExpr(query)
	if expr == "" {
		return nil
	}
	var hits []Hit
	err := ix.reader(context.Background(), func(c *sqlite3.Conn) error {
		st, _, err := c.Prepare(referenceSQL())
		if err != nil {
			return err
		}
		defer st.Close()
		if err := bindAll(st, expr); err != nil {
			return err
		}
		for st.Step() {
			hits = append(hits, Hit{Path: st.ColumnText(0), Chunk: st.ColumnInt(1), Page: st.ColumnInt(2),
				LineStart: st.ColumnInt(3), LineEnd: st.ColumnInt(4), Score: st.ColumnFloat(5), FileHash: st.ColumnText(6)})
		}
		return st.Err()
	})
	if err != nil {
		t.Fatalf("reference %q: %v", query, err)
	}
	return hits
}

// equivalenceQueries are the fixture's title words one to three at a time,
// plus phrases, stop words, CJK, odd input and words found nowhere.
func equivalenceQueries(t *testing.T, root string) []string {
	t.Helper()
	snap, err := vault.Load(context.Background(), root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs := []string{"the", "the of and", `"sourdough starter"`, `"sourdough bread"`, `"plate tectonics" home`, `"a b`, "中文 笔记", "café résumé", "zzzqqq", "recipe OR garden", "", "   ", "NEAR(a b)", "x*", "tomato -basil"}
	for i, n := range snap.Notes {
		words := strings.Fields(n.Title)
		if len(words) > 0 {
			qs = append(qs, strings.Join(words[:min(len(words), 1+i%3)], " "))
		}
	}
	return qs
}

// TestSearchEqualsReference checks that Search scoring from SQLite reads
// (the in-memory copy off) returns, at FTS5's k1 and b, for every limit
// and lookup batch size, exactly the first rows of the reference query
// (FTS5's bm25()): same chunks, same order, bit-identical scores.
func TestSearchEqualsReference(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, ix func(root string) *Index) (string, *Index)
	}{
		{"fixture", func(_ *testing.T, ix func(string) *Index) (string, *Index) {
			return "../testdata/vault", ix("../testdata/vault")
		}},
		{"ties", tieVault},
		{"generated", genVault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, ix := tc.setup(t, func(root string) *Index { return open(t, root, filepath.Join(t.TempDir(), "ix.db"), false) })
			ix.bm25.off = true // the SQLite-read path; memfts_test.go checks the in-memory one
			syncDisk(t, ix)
			var compared int
			if tc.name == "generated" { // many queries: fewer cuts (the race detector makes each slow)
				qs := append(equivalenceQueries(t, root), append(genQueries(), genPhrases...)...)
				limits := []int{1, 7, 450, 100000}
				if raceEnabled { // one goroutine: the smallest and largest cut suffice under -race
					limits = []int{1, 100000}
				}
				compared, _ = compareAt(t, ix, qs, limits, []int{1, firstBatch})
			} else {
				compared, _ = compareWithReference(t, ix, equivalenceQueries(t, root))
			}
			if compared == 0 {
				t.Fatal("no query matched anything: the comparison proves nothing")
			}
		})
	}
}

// tieVault writes a vault where many chunks score exactly the same
// (copies of one note under different names, interleaved with unique
// ones), so tie groups straddle every cut. The notes are indexed in two
// rounds, the later names first, so that row ids do not follow path order
// (which would hide a tie broken by row id).
func tieVault(t *testing.T, ix func(root string) *Index) (string, *Index) {
	t.Helper()
	root := t.TempDir()
	write := func(from, to int) {
		for i := from; i < to; i++ {
			body := "Sourdough starter needs flour and water.\n"
			if i%3 == 0 {
				body = fmt.Sprintf("Sourdough starter %d needs rye flour, water and patience.\n", i)
			}
			name := fmt.Sprintf("%02d copy.md", 99-i)
			if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(0, 20)
	x := ix(root)
	syncDisk(t, x)
	write(20, 40)
	return root, x
}
