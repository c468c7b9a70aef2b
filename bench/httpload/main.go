// Command httpload is a bounded load generator for `enquire-mcp
// serve-http`: N concurrent MCP clients over Streamable HTTP run a mix of
// 70 % obsidian_search, 20 % obsidian_read_note and 10 % graph tools for a
// fixed time (and at most a fixed number of calls), then report latency
// percentiles per tool family, throughput, errors and the server's RSS.
// By default each client calls again as soon as its last call returned
// (closed loop: it measures the saturated throughput); --rate R sends R
// calls/s in total on a fixed timetable instead (open loop: latency at a
// given offered load, counted from each call's scheduled time).
// It only talks to 127.0.0.1 / localhost. With --edit-vault it also
// rewrites notes in a scratch copy of the vault while it runs, to load a
// server that watches the vault.
//
//	ENQUIRE_HTTP_TOKEN=... go run ./bench/httpload --url http://127.0.0.1:8765/mcp \
//	    --vault /path/to/vault --pid $(pgrep -n enquire-mcp) --clients 50 --duration 60s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type config struct {
	url, vault, tokenEnv string
	clients, maxCalls    int
	duration             time.Duration
	pid                  int
	seed                 uint64
	// editVault, when set, is a (scratch copy of the) served vault in
	// which a note is rewritten every editEvery during the run, for a
	// server watching the vault (serve-http --watch).
	editVault string
	editEvery time.Duration
	// rate > 0 is an open loop: calls are sent on a fixed timetable of
	// rate calls/s in total, spread over the clients, and latency is
	// measured from each call's scheduled time (openloop.go). 0: closed
	// loop, each client calls again as soon as its last call returned.
	rate float64
	// warmup > 0 also reports latencies without the calls sent in the
	// run's first warmup (the server's first seconds after /ready).
	warmup time.Duration
	// client is "raw" (the SDK opens each session, then calls are plain
	// POSTs with its headers; rawcall.go) or "sdk" (every call through the
	// go-sdk client).
	client string
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8765/mcp", "MCP endpoint (127.0.0.1 or localhost only)")
	flag.StringVar(&c.vault, "vault", "", "the served vault (its note names make the queries and paths)")
	flag.StringVar(&c.tokenEnv, "token-env", "ENQUIRE_HTTP_TOKEN", "environment variable holding the bearer token (empty value: no auth)")
	flag.IntVar(&c.clients, "clients", 50, "concurrent clients, one MCP session each")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long to run (at most 10m)")
	flag.IntVar(&c.maxCalls, "max-calls", 1_000_000, "stop after this many calls in total")
	flag.IntVar(&c.pid, "pid", 0, "server process id, to sample its RSS from /proc (0: skip)")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.StringVar(&c.editVault, "edit-vault", "", "a scratch copy of the served vault: rewrite notes under httpload-edits/ in it during the run (for a watching server)")
	flag.DurationVar(&c.editEvery, "edit-every", 100*time.Millisecond, "with --edit-vault: time between edits")
	flag.DurationVar(&c.warmup, "warmup", 0, "also report latencies without the calls sent in this first part of the run (the server's first seconds after /ready: page faults, heap growth)")
	flag.Float64Var(&c.rate, "rate", 0, "open loop: offered calls/s in total, evenly spaced over the clients; latency counts from each call's scheduled time (0: closed loop)")
	flag.StringVar(&c.client, "client", "raw", `"raw": the go-sdk opens each session, then calls are plain POSTs with the SDK's headers (cheap for the load generator); "sdk": every call through the go-sdk client`)
	flag.Parse()
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "httpload:", err)
		os.Exit(1)
	}
}

// family is a kind of call measured apart.
type family string

const (
	famSearch family = "search"
	famRead   family = "read_note"
	famGraph  family = "graph"
)

var graphTools = []string{"obsidian_get_backlinks", "obsidian_get_outbound_links", "obsidian_get_note_neighbors"}

// sample is one finished call.
type sample struct {
	fam family
	d   time.Duration
	err bool
	// late: an open-loop call sent more than lateAfter after its
	// scheduled time (the client was still waiting for its last call).
	late bool
	// warm: sent in the first --warmup of the run.
	warm bool
}

func run(ctx context.Context, c config, out io.Writer) error {
	u, err := url.Parse(c.url)
	if err != nil || (u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" && u.Hostname() != "::1") {
		return fmt.Errorf("--url %q: only loopback targets are allowed", c.url)
	}
	if c.duration <= 0 || c.duration > 10*time.Minute || c.clients < 1 || c.clients > 1000 {
		return errors.New("--duration must be in (0, 10m] and --clients in [1, 1000]")
	}
	if c.rate < 0 || c.rate > 100_000 {
		return errors.New("--rate must be in [0, 100000] calls/s")
	}
	if c.client == "" {
		c.client = "raw"
	}
	if c.client != "raw" && c.client != "sdk" {
		return fmt.Errorf("--client %q: want raw or sdk", c.client)
	}
	notes, err := noteNames(c.vault)
	if err != nil {
		return err
	}
	var base http.RoundTripper = &http.Transport{MaxIdleConnsPerHost: c.clients * 2}
	if tok := os.Getenv(c.tokenEnv); tok != "" {
		base = bearer{tok, base}
	}
	sessions := make([]*mcp.ClientSession, c.clients)
	raws := make([]*rawCaller, c.clients)
	warm := rand.New(rand.NewPCG(c.seed, 1<<32))
	for i := range sessions {
		rec := &headerRecorder{next: base}
		hc := &http.Client{Transport: rec, Timeout: 60 * time.Second}
		cl := mcp.NewClient(&mcp.Implementation{Name: "httpload", Version: "1"}, nil)
		if sessions[i], err = cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: hc, DisableStandaloneSSE: true}, nil); err != nil {
			return fmt.Errorf("client %d: connect: %w", i, err)
		}
		defer sessions[i].Close()
		if c.client == "raw" {
			if raws[i], err = newRawCaller(ctx, sessions[i], rec, &http.Client{Transport: base, Timeout: hc.Timeout}, c.url, warm, notes); err != nil {
				return fmt.Errorf("client %d: %w", i, err)
			}
		}
	}
	rssT := trackRSS(func() int64 { return rss(c.pid) }, rssEvery)

	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	edits := make(chan editResult, 1)
	go func() { edits <- edit(ctx, c.editVault, c.editEvery) }()
	var budget atomic.Int64
	budget.Store(int64(c.maxCalls))
	results := make([][]sample, c.clients)
	end, _ := ctx.Deadline()
	var unsent atomic.Int64 // open loop: calls due before the end but never sent
	var firstErr sync.Once
	var errMsg string
	start := time.Now()
	cpuStart := selfCPU()
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(c.seed, uint64(i)))
			sched := newSchedule(start, c.rate, c.clients, i)
			sent := 0
			if sched != nil {
				defer func() { unsent.Add(int64(max(0, sched.due(end)-sent))) }()
			}
			for k := 0; ctx.Err() == nil && budget.Add(-1) >= 0; k++ {
				fam, name, args := pick(rng, notes)
				t0 := time.Now()
				late := false
				if sched != nil {
					if !wait(ctx, sched.at(k)) {
						break
					}
					t0 = sched.at(k) // latency from the scheduled time
					late = time.Since(t0) > lateAfter
				}
				sent++
				bad, msg, err := callOnce(ctx, cs, raws[i], name, args)
				d := time.Since(t0)
				if ctx.Err() != nil && err != nil {
					break // cut off by the end of the run, not a server error
				}
				if bad = bad || err != nil; bad {
					firstErr.Do(func() { errMsg = fmt.Sprintf("%s %v: %v %s", name, args, err, msg) })
				}
				results[i] = append(results[i], sample{fam, d, bad, late, t0.Sub(start) < c.warmup})
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	loadCPU := selfCPU() - cpuStart
	rssSamples := rssT.finish()
	report(out, c, results, elapsed, errMsg)
	if c.rate > 0 && budget.Load() >= 0 {
		fmt.Fprintf(out, "open loop: %d calls were due before the end but never sent (their clients were still waiting): %s\n",
			unsent.Load(), keptUp(unsent.Load()))
	}
	if c.pid > 0 {
		reportRSS(out, rssSamples, rssEvery, 10*time.Second)
	}
	if n := calls(results); loadCPU > 0 && n > 0 {
		fmt.Fprintf(out, "load generator (%s client) CPU %.1f s for %d calls: %.2f ms/call\n", c.client, loadCPU.Seconds(), n, 1000*loadCPU.Seconds()/float64(n))
	}
	if e := <-edits; c.editVault != "" {
		fmt.Fprintf(out, "edits: %d notes rewritten under %s", e.n, filepath.Join(c.editVault, editFolder))
		if e.err != nil {
			fmt.Fprintf(out, ", stopped by: %v", e.err)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// editFolder is where --edit-vault edits happen (never existing notes).
const editFolder = "httpload-edits"

type editResult struct {
	n   int
	err error
}

// edit rewrites one of ten notes under editFolder every interval until
// ctx ends, so a watching server reloads while it serves.
func edit(ctx context.Context, vault string, every time.Duration) editResult {
	if vault == "" || every <= 0 {
		return editResult{}
	}
	dir := filepath.Join(vault, editFolder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return editResult{err: err}
	}
	t := time.NewTicker(every)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return editResult{n: n}
		case <-t.C:
		}
		body := fmt.Sprintf("---\ntags: [loadtest]\n---\n# Edit %d\n\nRewritten at %s, links to [[Edit %d]].\n", n, time.Now().Format(time.RFC3339Nano), (n+1)%10)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("Edit %d.md", n%10)), []byte(body), 0o644); err != nil {
			return editResult{n: n, err: err}
		}
		n++
	}
}

// pick draws one call of the 70/20/10 mix.
func pick(rng *rand.Rand, notes []string) (family, string, map[string]any) {
	note := notes[rng.IntN(len(notes))]
	switch r := rng.IntN(100); {
	case r < 70:
		return famSearch, "obsidian_search", map[string]any{"query": query(rng, notes), "limit": 10}
	case r < 90:
		return famRead, "obsidian_read_note", map[string]any{"path": note}
	default:
		return famGraph, graphTools[rng.IntN(len(graphTools))], map[string]any{"path": note}
	}
}

// query is one to three words taken from note titles, as a person would
// type half-remembered names.
func query(rng *rand.Rand, notes []string) string {
	var words []string
	for range 1 + rng.IntN(3) {
		title := strings.TrimSuffix(filepath.Base(notes[rng.IntN(len(notes))]), ".md")
		f := strings.Fields(title)
		words = append(words, f[rng.IntN(len(f))])
	}
	return strings.Join(words, " ")
}

// noteNames lists the vault's notes (relative, slash-separated), skipping
// hidden folders. Only names are read, never content.
func noteNames(root string) ([]string, error) {
	if root == "" {
		return nil, errors.New("--vault is required")
	}
	var notes []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && strings.TrimSpace(strings.TrimSuffix(d.Name(), ".md")) != "" {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			notes = append(notes, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", root, err)
	}
	if len(notes) == 0 {
		return nil, fmt.Errorf("vault %s: no notes", root)
	}
	slices.Sort(notes)
	return notes, nil
}

// rss is the resident set of pid in bytes (0 when unknown).
func rss(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// callOnce sends one call through the raw caller when there is one,
// else through the SDK session.
func callOnce(ctx context.Context, cs *mcp.ClientSession, raw *rawCaller, name string, args map[string]any) (bad bool, msg string, err error) {
	if raw != nil {
		return raw.call(ctx, name, args)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return true, "", err
	}
	return res.IsError, errText(res), nil
}

// calls counts the finished calls.
func calls(results [][]sample) int {
	n := 0
	for _, rs := range results {
		n += len(rs)
	}
	return n
}

func errText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// rssEvery is how often the server's RSS is sampled.
const rssEvery = 2 * time.Second

// printPercentiles prints each family's latency percentiles, then all's.
func printPercentiles(out io.Writer, by map[family][]time.Duration, all []time.Duration) {
	for _, f := range []family{famSearch, famRead, famGraph, "all"} {
		ds := by[f]
		if f == "all" {
			ds = all
		}
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds)
		fmt.Fprintf(out, "%-10s n=%-7d p50 %7.1f ms  p90 %7.1f ms  p99 %7.1f ms  p99.9 %7.1f ms  max %7.1f ms\n", f, len(ds),
			ms(pct(ds, 500)), ms(pct(ds, 900)), ms(pct(ds, 990)), ms(pct(ds, 999)), ms(ds[len(ds)-1]))
	}
}

func report(out io.Writer, c config, results [][]sample, elapsed time.Duration, errMsg string) {
	by := map[family][]time.Duration{}
	var all []time.Duration
	errs, late := 0, 0
	for _, rs := range results {
		for _, s := range rs {
			if s.late {
				late++
			}
			if s.err {
				errs++
				continue
			}
			by[s.fam] = append(by[s.fam], s.d)
			all = append(all, s.d)
		}
	}
	total := len(all) + errs
	fmt.Fprintf(out, "clients %d, duration %s, calls %d, errors %d, throughput %.0f calls/s\n",
		c.clients, elapsed.Round(time.Millisecond), total, errs, float64(total)/elapsed.Seconds())
	if c.rate > 0 {
		fmt.Fprintf(out, "open loop: offered %.0f calls/s, latency from the scheduled send time; %d calls (%.1f %%) sent over %s late\n",
			c.rate, late, 100*float64(late)/float64(max(total, 1)), lateAfter)
	}
	printPercentiles(out, by, all)
	if c.warmup > 0 {
		by, all := map[family][]time.Duration{}, []time.Duration(nil)
		for _, rs := range results {
			for _, s := range rs {
				if !s.err && !s.warm {
					by[s.fam] = append(by[s.fam], s.d)
					all = append(all, s.d)
				}
			}
		}
		fmt.Fprintf(out, "without the calls sent in the first %s:\n", c.warmup)
		printPercentiles(out, by, all)
	}
	if errMsg != "" {
		fmt.Fprintf(out, "first error: %s\n", errMsg)
	}
}

// pct is the permille-th per mille of sorted (990: p99, 999: p99.9), the
// nearest-rank definition.
func pct(sorted []time.Duration, permille int) time.Duration {
	i := (len(sorted)*permille + 999) / 1000
	return sorted[max(0, min(len(sorted)-1, i-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// bearer adds the Authorization header.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
