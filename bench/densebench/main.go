// Command densebench measures the dense (embeddings) stage of
// obsidian_search with and without the large-vault prefilter: the
// built-in model's vectors are built into an index (or an existing index
// file is reused), then every sampled query runs the dense signal over
// every vector and over the lexical candidates only, interleaved so that
// machine load hits both alike. It also times whole searches with the
// prefilter off and on and reports how many of the top 10 hits agree.
//
//	bash bench/scale-vault.sh 8 /tmp/i14b-scale-vault
//	go run ./bench/densebench -vault /tmp/i14b-scale-vault -index-file /tmp/i14b-scale.db
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/bench/queries"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	dir := flag.String("vault", "", "vault to measure (required)")
	ixFile := flag.String("index-file", "", "index file to build or reuse (required; keep it under /tmp)")
	nq := flag.Int("queries", 200, "number of sampled queries")
	flag.Parse()
	if *dir == "" || *ixFile == "" {
		fmt.Fprintln(os.Stderr, "densebench: -vault and -index-file are required")
		os.Exit(2)
	}
	if err := run(context.Background(), *dir, *ixFile, *nq); err != nil {
		fmt.Fprintln(os.Stderr, "densebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, ixFile string, nq int) error {
	snap, err := vault.Load(ctx, dir, vault.Options{})
	if err != nil {
		return err
	}
	ix, err := index.Open(ctx, ixFile, index.NewSettings(snap.Root, false, chunk.DefaultOptions), false)
	if err != nil {
		return err
	}
	defer ix.Close()
	src := index.SnapshotSource(snap)
	st, err := ix.Sync(ctx, src, nil)
	if err != nil {
		return err
	}
	model, err := models.Open(ctx, models.DefaultAlias, models.Options{})
	if err != nil {
		return err
	}
	start := time.Now()
	es, err := ix.Vectors().Build(ctx, src, model, models.DefaultAlias, 0, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "index: %d chunks; embeddings: %d new in %s\n", st.Chunks, es.Embedded, time.Since(start).Round(time.Millisecond))
	engine := func(limit int) (*search.Engine, error) {
		return search.New(ctx, snap, analysis.New(), search.Options{Index: ix, Embedder: model, EmbedderAlias: models.DefaultAlias, PrefilterLimit: limit})
	}
	full, err := engine(-1)
	if err != nil {
		return err
	}
	pre, err := engine(1) // prefilter forced on, whatever the vault size
	if err != nil {
		return err
	}
	queries := queries.FromVault(snap, nq)
	// The signals timed one by one are built here, as the engine builds
	// its own: the engine does not hand out its rankers.
	chunks := make([][]chunk.Chunk, len(snap.Notes))
	for i, n := range snap.Notes {
		chunks[i] = chunk.Split(n, search.Options{}.Chunk)
	}
	chunkCount := func(n int) int { return len(chunks[n]) }
	tf, err := rankers.NewTFIDF(ctx, analysis.New(), snap.Notes, chunks, rankers.DefaultFieldWeights)
	if err != nil {
		return err
	}
	emb, err := rankers.LoadEmbeddings(ctx, ix, snap, chunkCount, model, models.DefaultAlias)
	if err != nil {
		return err
	}
	lex := []rankers.Ranker{tf, rankers.NewBM25(ix, snap, chunkCount)}
	var denseAll, densePre, lex100, lex1000, searchFull, searchPre []time.Duration
	var rowsScored, agree, compared int
	for round := range 2 { // round 0 warms caches and is not kept
		for _, q := range queries {
			d100, _, err := lexical(ctx, lex, len(snap.Notes), q, 100)
			if err != nil {
				return err
			}
			d1000, within, err := lexical(ctx, lex, len(snap.Notes), q, rankers.PrefilterDepth)
			if err != nil {
				return err
			}
			a, err := timeRank(ctx, emb, rankers.Request{Query: q, Limit: 100})
			if err != nil {
				return err
			}
			p, err := timeRank(ctx, emb, rankers.Request{Query: q, Limit: 100, Within: within})
			if err != nil {
				return err
			}
			sf, rf, err := timeSearch(ctx, full, q)
			if err != nil {
				return err
			}
			sp, rp, err := timeSearch(ctx, pre, q)
			if err != nil {
				return err
			}
			if round == 0 {
				continue
			}
			denseAll, densePre = append(denseAll, a), append(densePre, p)
			lex100, lex1000 = append(lex100, d100), append(lex1000, d1000)
			searchFull, searchPre = append(searchFull, sf), append(searchPre, sp)
			rowsScored += rowsOf(chunks, within)
			agree += overlap(rf, rp)
			compared += min(10, len(rf))
		}
	}
	fmt.Printf("vault: %s — %d notes, %d chunk vectors (%s); %d queries; GOMAXPROCS=%d\n\n",
		dir, len(snap.Notes), emb.Len(), emb.Model().ID, len(queries), runtime.GOMAXPROCS(0))
	fmt.Println("| measure | p50 | p99 |")
	fmt.Println("|---|---|---|")
	row := func(name string, ds []time.Duration) {
		fmt.Printf("| %s | %s | %s |\n", name, ms(pct(ds, 50)), ms(pct(ds, 99)))
	}
	row("dense stage, every vector", denseAll)
	row("dense stage, prefiltered (lexical candidates only)", densePre)
	row("lexical signals at depth 100 (tfidf+bm25, sequential)", lex100)
	row("lexical signals at depth 1000 (what the prefilter asks)", lex1000)
	row("obsidian_search, prefilter off", searchFull)
	row("obsidian_search, prefilter on", searchPre)
	fmt.Printf("\nprefilter scored %.0f chunk vectors per query on average (of %d); top-10 hits shared with the unfiltered search: %.1f%%\n",
		float64(rowsScored)/float64(len(queries)), emb.Len(), 100*float64(agree)/float64(max(1, compared)))
	return nil
}

// lexical times TF-IDF and BM25 ranking at depth (one after the other)
// and returns the union of their notes: the prefilter's note mask.
func lexical(ctx context.Context, lex []rankers.Ranker, notes int, q string, depth int) (time.Duration, []bool, error) {
	within := make([]bool, notes)
	var took time.Duration
	for _, r := range lex {
		start := time.Now()
		cands, err := r.Rank(ctx, rankers.Request{Query: q, Limit: depth})
		took += time.Since(start)
		if err != nil {
			return 0, nil, err
		}
		for _, c := range cands {
			within[c.Note] = true
		}
	}
	return took, within, nil
}

func timeRank(ctx context.Context, emb *rankers.Embeddings, req rankers.Request) (time.Duration, error) {
	start := time.Now()
	_, err := emb.Rank(ctx, req)
	return time.Since(start), err
}

func timeSearch(ctx context.Context, e *search.Engine, q string) (time.Duration, []string, error) {
	start := time.Now()
	res, err := e.Search(ctx, search.Request{Query: q, GraphBoost: true})
	took := time.Since(start)
	if err != nil {
		return 0, nil, err
	}
	var paths []string
	for _, h := range res.Hits {
		paths = append(paths, h.Path)
	}
	return took, paths, nil
}

// rowsOf counts the chunks of the notes in the mask.
func rowsOf(chunks [][]chunk.Chunk, within []bool) int {
	n := 0
	for i, ok := range within {
		if ok {
			n += len(chunks[i])
		}
	}
	return n
}

func overlap(a, b []string) int {
	n := 0
	for _, p := range a[:min(10, len(a))] {
		if slices.Contains(b[:min(10, len(b))], p) {
			n++
		}
	}
	return n
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
