// Command querybench measures obsidian_search latency through the real
// binary over MCP stdio (the way an assistant uses it) for a mix of 1–3
// word title fragments and, optionally, the queries of a vault-links
// dataset. With -dump it writes every query's hits (of the last round) (path, fused score and
// per-signal rank and score) as JSON lines; with -check it compares this
// run's hits against such a dump and fails on any difference in hits,
// order, or score beyond a float tolerance: the benchmark-side proof that
// a speed change left the rankings alone.
//
//	go run ./bench/querybench -bin enquire-mcp -vault ZK \
//	    -queries ../shared/datasets/vault-links/zettelkasten/queries.jsonl -dump before.jsonl
//	go run ./bench/querybench -bin enquire-mcp-new -vault ZK -queries … -check before.jsonl
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/enquire-mcp/enquire-mcp/bench/queries"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type config struct {
	bin, vault, queries, dump, check string
	titles, rounds                   int
	args                             string
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "", "enquire-mcp binary (required)")
	flag.StringVar(&c.vault, "vault", "", "vault to serve (required; its file names make the title fragments)")
	flag.StringVar(&c.queries, "queries", "", "a BEIR queries.jsonl to add to the title fragments (optional)")
	flag.IntVar(&c.titles, "titles", 300, "number of 1–3 word title fragments")
	flag.IntVar(&c.rounds, "rounds", 3, "timed rounds over the query list (after one warm-up round)")
	flag.StringVar(&c.args, "serve-args", "", "extra serve flags, space separated")
	flag.StringVar(&c.dump, "dump", "", "write every query's hits to this JSON-lines file")
	flag.StringVar(&c.check, "check", "", "compare every query's hits with this dump; exit 1 on a difference")
	flag.Parse()
	if c.bin == "" || c.vault == "" {
		fmt.Fprintln(os.Stderr, "querybench: -bin and -vault are required")
		os.Exit(2)
	}
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "querybench:", err)
		os.Exit(1)
	}
}

// hit is the part of a match that rankings decide.
type hit struct {
	Path      string              `json:"path"`
	Score     float64             `json:"score"`
	PerSignal map[string]sigScore `json:"per_signal"`
	// Snippet and the lines it comes from: the text a hit shows. A dump
	// made without them (older querybench) leaves them empty, and they
	// are then not compared.
	Snippet   string `json:"snippet,omitempty"`
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
}

type sigScore struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score"`
}

// answer is one query's outcome.
type answer struct {
	Query   string `json:"query"`
	Matches []hit  `json:"matches"`
}

func run(ctx context.Context, c config, out io.Writer) error {
	qs, err := titleFragments(c.vault, c.titles)
	if err != nil {
		return err
	}
	nTitles := len(qs)
	if c.queries != "" {
		more, err := queries.ReadBEIR(c.queries)
		if err != nil {
			return err
		}
		qs = append(qs, more...)
	}
	args := append([]string{"serve", "--vault", c.vault}, strings.Fields(c.args)...)
	cmd := exec.Command(c.bin, args...)
	cmd.Stderr = io.Discard
	client := mcp.NewClient(&mcp.Implementation{Name: "querybench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	answers := make([]answer, len(qs))
	var lat []time.Duration
	for round := range c.rounds + 1 {
		for i, q := range qs {
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q}})
			took := time.Since(start)
			if err != nil {
				return fmt.Errorf("query %q: %w", q, err)
			}
			if res.IsError {
				return fmt.Errorf("query %q: tool error", q)
			}
			if round == c.rounds { // the last round: caches and background builds are warm
				if answers[i], err = decode(q, res); err != nil {
					return err
				}
			}
			if round > 0 {
				lat = append(lat, took)
			}
		}
	}
	slices.Sort(lat)
	fmt.Fprintf(out, "%d queries (%d title fragments + %d from %s) × %d rounds, serve %s\n", len(qs), nTitles, len(qs)-nTitles, c.queries, c.rounds, strings.Join(args, " "))
	fmt.Fprintf(out, "obsidian_search over MCP stdio p50 / p95 / p99 / max: %.2f / %.2f / %.2f / %.2f ms\n",
		ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 99)), ms(lat[len(lat)-1]))
	if c.dump != "" {
		if err := writeDump(c.dump, answers); err != nil {
			return err
		}
	}
	if c.check != "" {
		return check(c.check, answers, out)
	}
	return nil
}

func decode(q string, res *mcp.CallToolResult) (answer, error) {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return answer{}, err
	}
	a := answer{Query: q}
	if err := json.Unmarshal(raw, &a); err != nil {
		return answer{}, fmt.Errorf("query %q: decode: %w", q, err)
	}
	a.Query = q
	return a, nil
}

func writeDump(path string, answers []answer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, a := range answers {
		if err := enc.Encode(a); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// check compares answers with a dump: same queries, same hits in the same
// order, scores equal within 1e-9 relative, same snippets and lines.
func check(path string, answers []answer, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var diffs []string
	n := 0
	for ; ; n++ {
		var want answer
		if err := dec.Decode(&want); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if n >= len(answers) || answers[n].Query != want.Query {
			return fmt.Errorf("%s: query %d is %q, this run's is not (same -titles and -queries?)", path, n, want.Query)
		}
		if d := diff(want, answers[n]); d != "" {
			diffs = append(diffs, d)
		}
	}
	if n != len(answers) {
		return fmt.Errorf("%s holds %d queries, this run %d", path, n, len(answers))
	}
	if len(diffs) > 0 {
		for _, d := range diffs[:min(len(diffs), 10)] {
			fmt.Fprintln(out, d)
		}
		return fmt.Errorf("%d of %d queries differ from %s", len(diffs), n, path)
	}
	fmt.Fprintf(out, "check: all %d queries have the same hits, order, scores and snippets as %s\n", n, path)
	return nil
}

func diff(want, got answer) string {
	if len(want.Matches) != len(got.Matches) {
		return fmt.Sprintf("%q: %d hits, want %d", want.Query, len(got.Matches), len(want.Matches))
	}
	for i, w := range want.Matches {
		g := got.Matches[i]
		if g.Path != w.Path || !close(g.Score, w.Score) {
			return fmt.Sprintf("%q: hit %d is %s (%g), want %s (%g)", want.Query, i+1, g.Path, g.Score, w.Path, w.Score)
		}
		if w.Snippet != "" && (g.Snippet != w.Snippet || g.LineStart != w.LineStart || g.LineEnd != w.LineEnd) {
			return fmt.Sprintf("%q: hit %d (%s) shows %q (lines %d–%d), want %q (lines %d–%d)", want.Query, i+1, g.Path,
				g.Snippet, g.LineStart, g.LineEnd, w.Snippet, w.LineStart, w.LineEnd)
		}
		if len(g.PerSignal) != len(w.PerSignal) {
			return fmt.Sprintf("%q: hit %d signals %v, want %v", want.Query, i+1, g.PerSignal, w.PerSignal)
		}
		for sig, ws := range w.PerSignal {
			if gs, ok := g.PerSignal[sig]; !ok || gs.Rank != ws.Rank || !close(gs.Score, ws.Score) {
				return fmt.Sprintf("%q: hit %d %s %+v, want %+v", want.Query, i+1, sig, gs, ws)
			}
		}
	}
	return ""
}

func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// titleFragments makes n deterministic 1–3 word queries from note file
// names, spread over the sorted list.
func titleFragments(root string, n int) ([]string, error) {
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			names = append(names, strings.TrimSuffix(d.Name(), ".md"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []string
	step := max(1, len(names)/max(1, n))
	for i := 0; i < len(names) && len(out) < n; i += step {
		words := strings.Fields(names[i])
		if len(words) == 0 {
			continue
		}
		out = append(out, strings.Join(words[:min(len(words), 1+i%3)], " "))
	}
	return out, nil
}

func pct(sorted []time.Duration, p float64) time.Duration {
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
