package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// fts5ScoreSQL is how Search scored without the in-memory copy before
// BM25's b became a setting: FTS5's own bm25() (k1 1.2, b 0.75). Kept
// here to measure the Go scoring that replaced it against it.
func fts5ScoreSQL() string {
	w := make([]string, len(columnWeights))
	for i, c := range columnWeights {
		w[i] = fmt.Sprintf("%d.0", c.weight)
	}
	return `SELECT rowid, -bm25(fts, ` + strings.Join(w, ", ") + `) FROM fts WHERE fts MATCH ?`
}

// BenchmarkFallbackScore measures one search without the in-memory copy
// (the limit 450 best rows of title words one to three at a time, and of
// two-word quoted phrases), from the start of scoring to the last hit:
// "fts5" scores with FTS5's bm25() in SQL (the path this replaced), "read"
// with the Go scoring over postings read for the query (readScores),
// "copy" from the in-memory copy (single words only). All read one
// snapshot in one read transaction. On the index ENQUIRE_BENCH_INDEX_DB
// names, else on a generated corpus of 3,000 notes.
func BenchmarkFallbackScore(b *testing.B) {
	ix := benchIndexOrGenerated(b)
	ctx := context.Background()
	c, err := openConn(ctx, ix.path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	defer ix.bm25.stmts.release(c)
	if err := ix.bm25.stmts.setup(c, vocabSetup); err != nil {
		b.Fatal(err)
	}
	if err := ix.BM25().BuildPostings(ctx); err != nil {
		b.Fatal(err)
	}
	tok, err := newQueryTokenizer(ctx, Tokenizer)
	if err != nil {
		b.Fatal(err)
	}
	defer tok.close()
	words := benchTitleQueries(b, ix, 300)
	var phrases []string
	for _, q := range words {
		if f := strings.Fields(q); len(f) >= 2 {
			phrases = append(phrases, `"`+f[0]+" "+f[1]+`"`)
		}
	}
	if err := c.Exec(`BEGIN`); err != nil {
		b.Fatal(err)
	}
	defer c.Exec(`ROLLBACK`)
	for _, set := range []struct {
		name    string
		queries []string
	}{{"words", words}, {"phrases", phrases}} {
		for _, path := range []string{"fts5", "read", "copy"} {
			if path == "copy" && set.name == "phrases" {
				continue
			}
			b.Run(set.name+"/"+path, func(b *testing.B) {
				benchPath(b, ix, c, tok, set.queries, path)
			})
		}
	}
}

// benchPath runs the queries round robin on one scoring path.
func benchPath(b *testing.B, ix *Index, c *sqlite3.Conn, tok *queryTokenizer, queries []string, path string) {
	m, sc := ix.bm25.idx.Load(), new(scratch)
	hits, i := 0, 0
	count := func(Hit) bool { hits++; return true }
	for b.Loop() {
		terms := matchTerms(queries[i%len(queries)])
		i++
		phrases, _, err := tok.phrases(terms)
		if err != nil {
			b.Fatal(err)
		}
		var rows []scoredRow
		switch path {
		case "fts5":
			rows, err = fts5Scores(c, strings.Join(terms, " OR "))
		case "read":
			rows, err = ix.bm25.readScores(c, fts5Params, terms, phrases)
		case "copy":
			toks := make([]string, len(phrases))
			for k, p := range phrases {
				toks[k] = p[0]
			}
			m.emit(m.score(fts5Params, toks, sc), 450, count)
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		sortRows(rows)
		if err := emitBest(c, rows, 450, firstBatch, count); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(hits)/float64(i), "hits/op")
}

// fts5Scores scores every match of expr with FTS5's bm25().
func fts5Scores(c *sqlite3.Conn, expr string) ([]scoredRow, error) {
	st, _, err := c.Prepare(fts5ScoreSQL())
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := bindAll(st, expr); err != nil {
		return nil, err
	}
	var rows []scoredRow
	for st.Step() {
		rows = append(rows, scoredRow{st.ColumnInt64(0), st.ColumnFloat(1)})
	}
	return rows, st.Err()
}

// benchIndexOrGenerated is benchIndex, or without ENQUIRE_BENCH_INDEX_DB
// an index of a generated vault: 3,000 notes of 20 to 400 words drawn
// from a Zipf-distributed vocabulary of 8,000 made-up words, with titles
// of one to four words.
func benchIndexOrGenerated(b *testing.B) *Index {
	b.Helper()
	if os.Getenv("ENQUIRE_BENCH_INDEX_DB") != "" {
		return benchIndex(b)
	}
	root := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 8000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%sq%d", strings.Repeat("x", i%5), i)
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, uint64(len(vocab)-1))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(w, " ")
	}
	for i := range 3000 {
		body := fmt.Sprintf("# %s\n%s\n", text(1+rng.IntN(3)), text(20+rng.IntN(380)))
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("%s %d.md", text(1+rng.IntN(4)), i)), []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	real, err := vault.RealRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(b.TempDir(), "ix.db"), NewSettings(real, false, chunk.Options{}), false)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Sync(ctx, src, nil); err != nil {
		b.Fatal(err)
	}
	return ix
}
