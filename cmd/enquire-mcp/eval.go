package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/enquire-mcp/enquire-mcp/eval"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "DATASET_DIR [flags]", stderr)
	split := fs.String("split", "test", "qrels split: qrels/<split>.tsv (test, train, …)")
	matrix := fs.Bool("matrix", false, "evaluate every signal combination, with and without graph boost")
	signals := fs.String("signals", "", "comma-separated signals to fuse (tfidf,bm25,embeddings); default: all available")
	boost := fs.Bool("graph-boost", true, "apply the graph boost (single configuration)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	dumpFile := fs.String("dump-lists", "", "write every signal's ranked list per query (JSON lines: the inputs of an offline fusion replay, eval.ListDump) to this file and exit")
	runFile := fs.String("run", "", "write the TREC run of the default configuration to this file")
	indexFile := fs.String("index-file", "", "persistent index for the BM25 signal (default: a temporary file)")
	noIndex := fs.Bool("no-index", false, "evaluate without the persistent index (no BM25, no embeddings)")
	embedModel := fs.String("embedding-model", "builtin", `model for the embeddings signal (see build-embeddings); "" for none`)
	noEmbed := fs.Bool("no-embeddings", false, "evaluate without the embeddings signal")
	var weights weightsFlag
	fs.Var(&weights, "weights", "RRF weights for every configuration, e.g. bm25=2,tfidf=1 (default: the server's defaults, see docs/benchmarks.md)")
	equal := fs.Bool("equal-weights", false, "plain equal-weight RRF for every configuration")
	boostStrength := fs.Float64("boost-strength", 0, fmt.Sprintf("the graph boost's strength for every configuration (default %g)", rankers.BoostStrength))
	var tune tuneFlags
	tune.register(fs)
	var recency, importance unitFlag
	fs.Var(&recency, "recency-weight", "blend file freshness into every configuration's ranking, 0-1 (default 0)")
	fs.Var(&importance, "importance-weight", "blend the frontmatter importance into every configuration's ranking, 0-1 (default 0)")
	var vf vaultFlags
	vf.registerContent(fs) // as index reads the vault, PDFs and OCR too
	vf.ocr.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	vf.noteGiven(fs, contentKeep)
	if len(pos) != 1 {
		return usageError("give exactly one dataset folder (BEIR layout)")
	}
	if err := vf.checkContent(); err != nil {
		return err
	}
	if recency.v+importance.v > 1 {
		return usageError("--recency-weight + --importance-weight must not exceed 1")
	}
	var sigs []string
	if *signals != "" {
		sigs = strings.Split(*signals, ",")
		if err := (search.Request{Query: "signals", Signals: sigs}).Validate(); err != nil {
			return usageError("--signals: %v", err)
		}
	}
	if err := checkSplit(pos[0], *split); err != nil {
		return err
	}
	start := time.Now()
	ds, err := eval.Load(ctx, pos[0], *split, "")
	if err != nil {
		return err
	}
	defer ds.Close()
	vf.vault, vf.indexFile, vf.persistent, vf.noIndex, vf.tune = ds.Vault, *indexFile, !*noIndex, *noIndex, tune
	vf.boostStrength = *boostStrength
	if !*noEmbed && !*noIndex {
		vf.buildEmbeddings = *embedModel
	}
	if vf.persistent && vf.indexFile == "" {
		tmp, err := os.MkdirTemp("", "enquire-eval-index-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		vf.indexFile = filepath.Join(tmp, "index.db")
	}
	l, err := vf.load(ctx, errorLogger(stderr))
	if err != nil {
		return err
	}
	defer l.Close()
	eng := l.Engine()
	fmt.Fprintf(stderr, "dataset %s (%s): %d queries, %d documents, loaded and indexed in %s\n",
		pos[0], *split, len(ds.Queries), len(eng.Snapshot().Notes), time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stderr, "bm25: k1=%g b=%g\n", eng.BM25Params().K1, eng.BM25Params().B)
	if *dumpFile != "" {
		return dumpLists(ctx, eng, ds, *dumpFile)
	}
	if *equal {
		weights.m = map[string]float64{"bm25": 1, "tfidf": 1, "embeddings": 1, "feedback": 0}
	}
	def := eval.Config{GraphBoost: *boost, Weights: weights.m, RecencyWeight: recency.v, ImportanceWeight: importance.v}
	def.Signals = sigs
	configs := []eval.Config{def}
	if *matrix {
		configs = append(eval.Matrix(), eval.Config{GraphBoost: true})
		for i := range configs {
			configs[i].Weights = weights.m
			configs[i].RecencyWeight, configs[i].ImportanceWeight = recency.v, importance.v
		}
	}
	var reports []*eval.Report
	for _, c := range configs {
		bar := newProgress(stderr, len(ds.Queries), c.Name(), "queries")
		rep, err := eval.Run(ctx, eng, ds, c, bar.Set)
		bar.Done()
		if err != nil {
			return err
		}
		reports = append(reports, rep)
	}
	if *runFile != "" {
		if err := writeRunFile(*runFile, reports[len(reports)-1]); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if *matrix {
			return enc.Encode(reports)
		}
		return enc.Encode(reports[0])
	}
	printReports(stdout, reports, ds.Categories())
	return nil
}

func dumpLists(ctx context.Context, eng *search.Engine, ds *eval.Dataset, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("dump file: %w", err)
	}
	if err := eval.DumpLists(ctx, eng, ds, f); err != nil {
		f.Close()
		return fmt.Errorf("dump file %s: %w", path, err)
	}
	return f.Close()
}

func writeRunFile(path string, rep *eval.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("run file: %w", err)
	}
	if err := eval.WriteRun(f, rep.Rankings, "enquire-mcp"); err != nil {
		f.Close()
		return fmt.Errorf("run file %s: %w", path, err)
	}
	return f.Close()
}

func printReports(w io.Writer, reports []*eval.Report, categories []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "config\tsignals\tnDCG@10\tR@10\tR@100\tMRR@10\tMAP\tmean ms\tp50 ms\tp95 ms")
	for _, r := range reports {
		if len(r.Unavailable) > 0 {
			fmt.Fprintf(tw, "%s\tunavailable: %s\t\t\t\t\t\t\t\t\n", r.Config.Name(), strings.Join(r.Unavailable, ", "))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.2f\t%.2f\t%.2f\n", r.Config.Name(), strings.Join(r.SignalsUsed, "+"),
			r.NDCG10, r.Recall10, r.Recall100, r.MRR10, r.MAP, r.Latency.Mean, r.Latency.P50, r.Latency.P95)
	}
	tw.Flush()
	if len(categories) == 0 {
		return
	}
	fmt.Fprintln(w, "\nnDCG@10 by category:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "config\t%s\n", strings.Join(categories, "\t"))
	for _, r := range reports {
		if len(r.Unavailable) > 0 {
			continue
		}
		row := r.Config.Name()
		for _, c := range categories {
			row += fmt.Sprintf("\t%.4f (%d)", r.Categories[c].NDCG10, r.Categories[c].Queries)
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
}

// checkSplit makes a --split the dataset lacks a usage error that names
// the splits it has; a missing dataset folder stays a plain error.
func checkSplit(dir, split string) error {
	qrels := filepath.Join(dir, "qrels")
	entries, err := os.ReadDir(qrels)
	if err != nil {
		return nil // eval.Load reports it
	}
	var have []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".tsv"); ok && !e.IsDir() {
			if name == split {
				return nil
			}
			have = append(have, name)
		}
	}
	return usageError("--split %q: %s has no %s.tsv (splits: %s)", split, qrels, split, strings.Join(have, ", "))
}
