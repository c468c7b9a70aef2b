// Command vaultbench measures enquire-mcp on a real vault: cold load and
// index build in process, search latency in process, and search latency
// plus peak memory of the real binary driven over MCP stdio by a go-sdk
// client, the way an assistant uses it. It prints one markdown table.
//
//	go run ./bench/vaultbench -vault ../shared/datasets/vaults/zettelkasten
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/bench/queries"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/pdf"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	dir := flag.String("vault", "", "vault to measure (required)")
	bin := flag.String("bin", "", "enquire-mcp binary (default: build ./cmd/enquire-mcp)")
	runs := flag.Int("runs", 5, "cold load runs (the median is reported)")
	nq := flag.Int("queries", 300, "number of queries for latency")
	withIndex := flag.Bool("index", false, "also build the persistent index (BM25) in a temporary file and measure with it")
	pdfs := flag.Bool("pdfs", false, "include PDFs (extracted in child processes of -bin, as the CLI does)")
	embeddings := flag.Bool("embeddings", false, "with -index: also build the built-in model's embeddings and search with them")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "vaultbench: -vault is required")
		os.Exit(2)
	}
	if err := run(context.Background(), config{dir: *dir, bin: *bin, runs: *runs, queries: *nq, index: *withIndex, pdfs: *pdfs, embeddings: *embeddings}); err != nil {
		fmt.Fprintln(os.Stderr, "vaultbench:", err)
		os.Exit(1)
	}
}

// config is one vaultbench run.
type config struct {
	dir, bin      string
	runs, queries int
	index, pdfs   bool
	embeddings    bool
}

func run(ctx context.Context, c config) error {
	dir, bin, runs, nq, withIndex := c.dir, c.bin, c.runs, c.queries, c.index
	if bin == "" {
		var err error
		if bin, err = build(); err != nil {
			return err
		}
		defer os.RemoveAll(filepath.Dir(bin))
	}
	reader := vault.PDFReader{Extract: pdf.Isolated{Command: []string{bin, "__extract-pdf"}}.ExtractFile}
	var loads, builds []time.Duration
	var eng *search.Engine
	for range runs {
		runtime.GC()
		start := time.Now()
		snap, err := vault.Load(ctx, dir, vault.Options{PDFs: c.pdfs, PDF: reader})
		if err != nil {
			return err
		}
		loaded := time.Now()
		if eng, err = search.New(ctx, snap, analysis.New(), search.Options{}); err != nil {
			return err
		}
		loads = append(loads, loaded.Sub(start))
		builds = append(builds, time.Since(loaded))
	}
	queries := queries.FromVault(eng.Snapshot(), nq)
	var ib *indexBench
	if withIndex {
		var err error
		if ib, err = benchIndex(ctx, eng.Snapshot(), runs, c.pdfs, reader); err != nil {
			return err
		}
		defer ib.close()
		opts := search.Options{Index: ib.ix}
		if c.embeddings {
			if opts.Embedder, err = ib.embed(ctx, eng.Snapshot(), reader); err != nil {
				return err
			}
			opts.EmbedderAlias = models.DefaultAlias
		}
		if eng, err = search.New(ctx, eng.Snapshot(), analysis.New(), opts); err != nil {
			return err
		}
	}
	inproc, err := inProcess(ctx, eng, queries, nil)
	if err != nil {
		return err
	}
	serveArgs := []string{"serve", "--vault", dir}
	if c.pdfs {
		serveArgs = append(serveArgs, "--include-pdfs")
	}
	if ib != nil {
		serveArgs = append(serveArgs, "--index-file", ib.path)
	}
	ready, viaMCP, rssKB, err := overStdio(ctx, bin, serveArgs, queries)
	if err != nil {
		return err
	}
	snap := eng.Snapshot()
	fmt.Printf("vault: %s — %d documents (PDFs: %v), %d attachments, %.1f MB; %d queries; GOMAXPROCS=%d\n\n",
		dir, len(snap.Notes), c.pdfs, len(snap.Attachments), float64(noteBytes(snap))/1e6, len(queries), runtime.GOMAXPROCS(0))
	fmt.Println("| measure | value |")
	fmt.Println("|---|---|")
	fmt.Printf("| load + parse (median of %d) | %s |\n", runs, ms(median(loads)))
	fmt.Printf("| chunks + graph + TF-IDF build (median of %d) | %s |\n", runs, ms(median(builds)))
	fmt.Printf("| load + build total (median of %d) | %s |\n", runs, ms(median(sum(loads, builds))))
	if ib != nil {
		bm25, err := inProcess(ctx, eng, queries, []string{"bm25"})
		if err != nil {
			return err
		}
		fmt.Printf("| cold index, %d chunks (median of %d, fresh file each) | %s |\n", ib.chunks, runs, ms(median(ib.cold)))
		fmt.Printf("| resync, nothing changed: stat walk + sync (median of %d) | %s |\n", runs, ms(median(ib.resync)))
		fmt.Printf("| index file size | %.1f MB (%.2f × the notes) |\n", float64(ib.size)/1e6, float64(ib.size)/float64(noteBytes(eng.Snapshot())))
		fmt.Printf("| BM25 alone in process p50 / p95 / p99 | %s / %s / %s |\n", ms(pct(bm25, 50)), ms(pct(bm25, 95)), ms(pct(bm25, 99)))
		if ib.embedded > 0 {
			dense, err := inProcess(ctx, eng, queries, []string{"embeddings"})
			if err != nil {
				return err
			}
			fmt.Printf("| build-embeddings (builtin), %d chunks | %s (%.0f chunks/s) |\n", ib.embedded, ms(ib.embedTook), float64(ib.embedded)/ib.embedTook.Seconds())
			fmt.Printf("| embeddings alone in process p50 / p95 / p99 | %s / %s / %s |\n", ms(pct(dense, 50)), ms(pct(dense, 95)), ms(pct(dense, 99)))
		}
	}
	fmt.Printf("| obsidian_search in process (%s) p50 / p95 / p99 | %s / %s / %s |\n", strings.Join(eng.Signals(), "+"), ms(pct(inproc, 50)), ms(pct(inproc, 95)), ms(pct(inproc, 99)))
	fmt.Printf("| serve: start to first answer over stdio | %s |\n", ms(ready))
	fmt.Printf("| obsidian_search over MCP stdio p50 / p95 / p99 | %s / %s / %s |\n", ms(pct(viaMCP, 50)), ms(pct(viaMCP, 95)), ms(pct(viaMCP, 99)))
	fmt.Printf("| serve peak RSS (VmHWM) | %.0f MB |\n", float64(rssKB)/1024)
	return nil
}

func inProcess(ctx context.Context, eng *search.Engine, queries, signals []string) ([]time.Duration, error) {
	var out []time.Duration
	for round := range 2 { // the first round warms caches and is not kept
		for _, q := range queries {
			start := time.Now()
			if _, err := eng.Search(ctx, search.Request{Query: q, GraphBoost: true, Signals: signals}); err != nil {
				return nil, fmt.Errorf("query %q: %w", q, err)
			}
			if round == 1 {
				out = append(out, time.Since(start))
			}
		}
	}
	return out, nil
}

func build() (string, error) {
	dir, err := os.MkdirTemp("", "vaultbench-*")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "enquire-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/enquire-mcp").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build (run from the repository root): %v\n%s", err, out)
	}
	return bin, nil
}

// overStdio starts the binary, waits for the first answer, times every
// query through the MCP client, and reads the server's peak RSS.
func overStdio(ctx context.Context, bin string, args, queries []string) (time.Duration, []time.Duration, int, error) {
	cmd := exec.Command(bin, args...)
	start := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "vaultbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return 0, nil, 0, err
	}
	defer cs.Close()
	call := func(q string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q}})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error for %q", q)
		}
		return err
	}
	if err := call(queries[0]); err != nil {
		return 0, nil, 0, err
	}
	ready := time.Since(start)
	var lat []time.Duration
	for _, q := range queries {
		t := time.Now()
		if err := call(q); err != nil {
			return 0, nil, 0, err
		}
		lat = append(lat, time.Since(t))
	}
	rss, err := peakRSS(cmd.Process.Pid)
	return ready, lat, rss, err
}

// peakRSS reads VmHWM (kB) from /proc (Linux).
func peakRSS(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb int
			_, err := fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &kb)
			return kb, err
		}
	}
	return 0, fmt.Errorf("peak RSS: no VmHWM in /proc/%d/status", pid)
}

func noteBytes(s *vault.Snapshot) int64 {
	var n int64
	for _, note := range s.Notes {
		n += note.Size
	}
	return n
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func sum(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// indexBench holds the persistent index built for the run.
type indexBench struct {
	dir, path    string
	ix           *index.Index
	cold, resync []time.Duration
	chunks       int
	size         int64
	embedded     int
	embedTook    time.Duration
}

// embed builds the built-in model's vectors into the index.
func (b *indexBench) embed(ctx context.Context, snap *vault.Snapshot, reader vault.PDFReader) (embed.Embedder, error) {
	model, err := models.Open(ctx, models.DefaultAlias, models.Options{})
	if err != nil {
		return nil, err
	}
	src, err := b.ix.DiskSource(ctx, 0, reader)
	if err != nil {
		return nil, err
	}
	st, err := b.ix.Vectors().Build(ctx, src, model, models.DefaultAlias, 0, nil)
	if err != nil {
		return nil, err
	}
	b.embedded, b.embedTook = st.Embedded, st.Duration
	return model, nil
}

func (b *indexBench) close() {
	b.ix.Close()
	os.RemoveAll(b.dir)
}

// benchIndex times cold index builds (a fresh file each run, the notes
// read from disk) and no-change resyncs, and leaves one index open.
func benchIndex(ctx context.Context, snap *vault.Snapshot, runs int, pdfs bool, reader vault.PDFReader) (*indexBench, error) {
	dir, err := os.MkdirTemp("", "vaultbench-index-*")
	if err != nil {
		return nil, err
	}
	b := &indexBench{dir: dir}
	settings := index.NewSettings(snap.Root, pdfs, chunk.DefaultOptions)
	for i := range runs {
		if b.ix != nil {
			b.ix.Close()
		}
		b.path = filepath.Join(dir, fmt.Sprintf("run%d.db", i))
		start := time.Now()
		if b.ix, err = index.Open(ctx, b.path, settings, false); err != nil {
			return nil, err
		}
		src, err := b.ix.DiskSource(ctx, 0, reader)
		if err != nil {
			return nil, err
		}
		st, err := b.ix.Sync(ctx, src, nil)
		if err != nil {
			return nil, err
		}
		b.cold = append(b.cold, time.Since(start))
		b.chunks = st.Chunks
	}
	for range runs {
		start := time.Now()
		src, err := b.ix.DiskSource(ctx, 0, reader)
		if err != nil {
			return nil, err
		}
		if _, err := b.ix.Sync(ctx, src, nil); err != nil {
			return nil, err
		}
		b.resync = append(b.resync, time.Since(start))
	}
	for _, suffix := range []string{"", "-wal"} {
		if info, err := os.Stat(b.path + suffix); err == nil {
			b.size += info.Size()
		}
	}
	return b, nil
}
