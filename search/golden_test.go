package search_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/search/enginetest"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

var update = flag.Bool("update", false, "rewrite the ranking golden files in testdata/golden")

// goldenFixture is a vault the ranking goldens search, with its queries.
type goldenFixture struct {
	name string
	dir  string
	pdfs bool
	reqs []search.Request
}

// goldenConfig is an engine configuration the goldens cover: the request
// weights over the engine's defaults.
type goldenConfig struct {
	name    string
	weights map[string]float64
}

// The queries mix single words, several words, a quoted phrase,
// paraphrases that share few words with their notes (the dense signal's
// case), tags, CJK, filters and a folder scope. Every request asks for
// the graph boost, as the search tool does by default.
var goldenFixtures = []goldenFixture{
	{name: "vault", dir: "../testdata/vault", reqs: []search.Request{
		{Query: "levain hydration"},
		{Query: "borrow checker lifetimes"},
		{Query: "K8s pods"},
		{Query: "goroutines select WaitGroup"},
		{Query: "worker pool"},
		{Query: `"event horizon"`},
		{Query: "index"},
		{Query: "how do plants turn sunlight into sugar"},
		{Query: "making bread rise with wild yeast"},
		{Query: "earthquakes and drifting continents"},
		{Query: "running many tasks at the same time"},
		{Query: "cooking dinner"},
		{Query: "#travel"},
		{Query: "notes", Tag: "programming"},
		{Query: "机器学习"},
		{Query: "寿司 東京"},
		{Query: "神经网络 深度学习"},
		{Query: "café naïve"},
		{Query: "project", Frontmatter: map[string]any{"status": "active"}},
		{Query: "concurrency", Folder: "Software"},
		{Query: "technique", Folder: "Cooking"},
		{Query: "pods deployments", Granularity: search.GranularityBlock},
		{Query: "garden tomato", MinSignals: 2},
		{Query: "windows line endings"},
		{Query: "coffee order"},
		{Query: "zzskipme"},
	}},
	{name: "vault2", dir: "../testdata/vault2", pdfs: true, reqs: []search.Request{
		{Query: "puncture"},
		{Query: "derailleur"},
		{Query: "chain wear gauge"},
		{Query: `"dark sky"`},
		{Query: "fixing a flat tyre on the road"},
		{Query: "looking at the moon through a telescope"},
		{Query: "saving money every month"},
		{Query: "birds singing at dawn"},
		{Query: "dovetail joint"},
		{Query: "meeting notes"},
		{Query: "Saturn rings"},
		{Query: "Ada"},
		{Query: "#astronomy"},
		{Query: "chain", Tag: "hobby"},
		{Query: "book", Frontmatter: map[string]any{"type": "book"}},
		{Query: "repair joint sky", Frontmatter: map[string]any{"rating": 5}},
		{Query: "plan", Folder: "Meetings"},
		{Query: "wood finish oil", Folder: "Workshop"},
		{Query: "自転車 整備"},
		{Query: "星空"},
		{Query: "torque specification", Granularity: search.GranularityBlock},
		{Query: "budget spreadsheet", MinSignals: 2},
		{Query: "emergency fund"},
		{Query: "Messier catalogue"},
		{Query: "brake pads"},
		{Query: "zzabsent"},
	}},
}

// goldenConfigs: the defaults (the built-in vectors at their default
// weight, which only annotates), and the built-in vectors weighted in
// like a model's so that the dense path is guarded too.
var goldenConfigs = []goldenConfig{
	{name: "default"},
	{name: "builtin-weighted", weights: map[string]float64{rankers.SignalEmbeddings: rankers.WeightEmbeddings}},
}

// TestRankingGolden writes, for every fixture, configuration and query,
// the top 10 hits with each signal's rank and the rank the hit had
// without the graph boost, and compares it with
// testdata/golden/<fixture>.<config>.txt: any ranking change shows as a
// diff. `go test ./search -run TestRankingGolden -update` rewrites them.
//
// The engine is the product's default: TF-IDF, BM25 from an index synced
// from the files, the built-in model's vectors, feedback and the graph
// boost. Transformer models are left out: their float32 kernels differ
// in the last bits between AVX2 and AVX-512 CPUs, enough to swap near
// ties.
func TestRankingGolden(t *testing.T) {
	ctx := context.Background()
	for _, fx := range goldenFixtures {
		t.Run(fx.name, func(t *testing.T) {
			e := goldenEngine(ctx, t, fx)
			for _, cfg := range goldenConfigs {
				t.Run(cfg.name, func(t *testing.T) {
					got := goldenText(ctx, t, e, fx, cfg)
					file := filepath.Join("testdata", "golden", fx.name+"."+cfg.name+".txt")
					if *update {
						if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(file)
					if err != nil {
						t.Fatalf("%v (run go test ./search -run TestRankingGolden -update)", err)
					}
					if d := lineDiff(string(want), got); d != "" {
						t.Errorf("ranking differs from %s (-want +got; rerun with -update if the change is meant):\n%s", file, d)
					}
				})
			}
		})
	}
}

// goldenEngine loads a fixture, syncs it into a fresh index, builds the
// built-in model's vectors and makes the engine.
func goldenEngine(ctx context.Context, t *testing.T, fx goldenFixture) *search.Engine {
	t.Helper()
	snap, err := vault.Load(ctx, fx.dir, vault.Options{PDFs: fx.pdfs})
	if err != nil {
		t.Fatal(err)
	}
	e := enginetest.Indexed(ctx, t, snap, fx.pdfs)
	if got := e.Signals(); !slices.Contains(got, rankers.SignalBM25) || !slices.Contains(got, rankers.SignalEmbeddings) {
		t.Fatalf("%s: signals %v, want BM25 and embeddings too", fx.name, got)
	}
	return e
}

// goldenText renders one fixture and configuration: per query a header,
// the signals used, and one line per hit.
func goldenText(ctx context.Context, t *testing.T, e *search.Engine, fx goldenFixture, cfg goldenConfig) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# fixture %s (PDFs %v), configuration %s, weights over the defaults %v\n", fx.name, fx.pdfs, cfg.name, cfg.weights)
	b.WriteString("# rank  path[#chunk]  bm25 tfidf embeddings feedback (each signal's rank, - if absent)  noboost (fused rank without the graph boost)\n")
	for _, req := range fx.reqs {
		req.Limit, req.GraphBoost, req.NoSnippets, req.Weights = 10, true, true, cfg.weights
		res, err := e.Search(ctx, req)
		if err != nil {
			t.Fatalf("%s %q: %v", fx.name, req.Query, err)
		}
		plain := req
		plain.GraphBoost, plain.Limit = false, 100
		unboosted, err := e.Search(ctx, plain)
		if err != nil {
			t.Fatalf("%s %q without boost: %v", fx.name, req.Query, err)
		}
		fmt.Fprintf(&b, "\n## %s\n", describe(req))
		fmt.Fprintf(&b, "signals %s; candidates %d\n", strings.Join(res.SignalsUsed, " "), res.TotalCandidates)
		for _, s := range slices.Sorted(maps.Keys(res.SignalErrors)) {
			fmt.Fprintf(&b, "error %s: %s\n", s, res.SignalErrors[s])
		}
		for i, h := range res.Hits {
			noboost := "-"
			for j, u := range unboosted.Hits {
				if u.Path == h.Path && u.Chunk == h.Chunk {
					noboost = fmt.Sprint(j + 1)
				}
			}
			fmt.Fprintf(&b, "%2d  %s  %s  noboost %s\n", i+1, hitName(h), signalRanks(h), noboost)
		}
	}
	return b.String()
}

// describe names a request by the fields the goldens set.
func describe(req search.Request) string {
	parts := []string{fmt.Sprintf("%q", req.Query)}
	if req.Folder != "" {
		parts = append(parts, "folder="+req.Folder)
	}
	if req.Tag != "" {
		parts = append(parts, "tag="+req.Tag)
	}
	for _, k := range slices.Sorted(maps.Keys(req.Frontmatter)) {
		parts = append(parts, fmt.Sprintf("frontmatter %s=%v", k, req.Frontmatter[k]))
	}
	if req.Granularity != "" {
		parts = append(parts, "granularity="+req.Granularity)
	}
	if req.MinSignals != 0 {
		parts = append(parts, fmt.Sprintf("min_signals=%d", req.MinSignals))
	}
	return strings.Join(parts, " ")
}

func hitName(h search.Hit) string {
	if h.Chunk == rankers.NoChunk {
		return h.Path
	}
	return fmt.Sprintf("%s#%d", h.Path, h.Chunk)
}

// signalRanks lists the hit's rank in each signal: the four that always
// show, then any other signal that found it.
func signalRanks(h search.Hit) string {
	core := []string{rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalEmbeddings, rankers.SignalFeedback}
	var parts []string
	for _, s := range core {
		r := "-"
		if sh, ok := h.Signals[s]; ok {
			r = fmt.Sprint(sh.Rank)
		}
		parts = append(parts, s+" "+r)
	}
	for _, s := range slices.Sorted(maps.Keys(h.Signals)) {
		if !slices.Contains(core, s) {
			parts = append(parts, fmt.Sprintf("%s %d", s, h.Signals[s].Rank))
		}
	}
	return strings.Join(parts, ", ")
}

// lineDiff is a minimal line diff of want and got ("" when equal): the
// lines only in want with "-", those only in got with "+", each with its
// line number, from a longest common subsequence.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	// Each change is preceded by the query it is under, once.
	var out strings.Builder
	section, shown := "", ""
	change := func(sign string, n int, line string) {
		if section != shown {
			fmt.Fprintf(&out, "@ %s\n", section)
			shown = section
		}
		fmt.Fprintf(&out, "%s%4d %s\n", sign, n, line)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			if strings.HasPrefix(a[i], "## ") {
				section = a[i]
			}
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			change("-", i+1, a[i])
			i++
		default:
			if strings.HasPrefix(b[j], "## ") {
				section = b[j]
			}
			change("+", j+1, b[j])
			j++
		}
	}
	return out.String()
}
