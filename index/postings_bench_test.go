package index

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// benchIndex opens the index file named by ENQUIRE_BENCH_INDEX_DB (a copy:
// the benchmarks only read it, but SQLite may checkpoint its WAL) without
// the settings check, or skips.
func benchIndex(b *testing.B) *Index {
	b.Helper()
	path := os.Getenv("ENQUIRE_BENCH_INDEX_DB")
	if path == "" {
		b.Skip("ENQUIRE_BENCH_INDEX_DB names no index file")
	}
	return newIndex(path, Settings{Tokenizer: Tokenizer})
}

// BenchmarkPostingsCopyBuild builds the in-memory BM25 copy of a real index and
// reports its size: "heap-MB" is the live heap it adds (measured after a
// GC), "est-MB" the structure's own estimate.
func BenchmarkPostingsCopyBuild(b *testing.B) {
	ix := benchIndex(b)
	var heap, est float64
	for b.Loop() {
		ix.bm25.idx.Store(nil)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := ix.BM25().BuildPostings(context.Background()); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		est = float64(ix.bm25.idx.Load().bytes()) / (1 << 20)
	}
	m := ix.bm25.idx.Load()
	b.ReportMetric(heap, "heap-MB")
	b.ReportMetric(est, "est-MB")
	b.ReportMetric(float64(len(m.ids)), "rows")
	b.ReportMetric(float64(len(m.docs)), "postings")
	b.ReportMetric(float64(len(m.terms)), "terms")
}

// BenchmarkPostingsCopyScore scores and ranks (limit 450, what a default search's
// BM25 signal asks for) the title words of the index's notes, one to three
// at a time, from memory: the part of a search the copy replaces.
func BenchmarkPostingsCopyScore(b *testing.B) {
	ix := benchIndex(b)
	if err := ix.BM25().BuildPostings(context.Background()); err != nil {
		b.Fatal(err)
	}
	tok, err := newQueryTokenizer(context.Background(), Tokenizer)
	if err != nil {
		b.Fatal(err)
	}
	defer tok.close()
	var queries [][]string
	for _, q := range benchTitleQueries(b, ix, 300) {
		if toks, ok, err := singleTokens(tok, matchTerms(q)); err == nil && ok {
			queries = append(queries, toks)
		}
	}
	m, sc, hits := ix.bm25.idx.Load(), new(scratch), 0
	i := 0
	for b.Loop() {
		m.emit(m.score(fts5Params, queries[i%len(queries)], sc), 450, func(Hit) bool { hits++; return true })
		i++
	}
	b.ReportMetric(float64(hits)/float64(i), "hits/op")
}

// benchTitleQueries returns n queries of one to three words of file names.
func benchTitleQueries(b *testing.B, ix *Index, n int) []string {
	b.Helper()
	c, err := sqlite3.Open(ix.path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	st, _, err := c.Prepare(`SELECT path FROM files ORDER BY path`)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var paths []string
	for st.Step() {
		paths = append(paths, st.ColumnText(0))
	}
	var out []string
	for i := 0; len(out) < n && len(paths) > 0; i++ {
		p := paths[(i*7919)%len(paths)]
		p = strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], ".md")
		if w := strings.Fields(p); len(w) > 0 {
			out = append(out, strings.Join(w[:min(len(w), 1+i%3)], " "))
		}
	}
	return out
}

// singleTokens returns the token of each of MatchExpr's terms, or false
// when a term is not exactly one token (what the in-memory copy scores).
func singleTokens(q *queryTokenizer, terms []string) ([]string, bool, error) {
	phrases, single, err := q.phrases(terms)
	if err != nil || !single {
		return nil, false, err
	}
	out := make([]string, len(phrases))
	for i, p := range phrases {
		out[i] = p[0]
	}
	return out, true, nil
}
