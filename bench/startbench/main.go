// Command startbench compares the resumed start of two enquire-mcp binaries
// on one vault, alternating them (A, B, A, B, …) so that both see the
// same machine load: each start is timed over MCP stdio from process
// start to the first obsidian_search answered, then sampled queries are
// timed and the peak RSS read. Each binary has its own index file (built
// with its own `index`, so that its engine state is saved), or reuses
// one given with -index-a / -index-b (e.g. with embeddings built). With
// -cold the engine state is deleted before each start (a start from the
// files, which saves the state again when it stops).
//
//	go run ./bench/startbench -vault DIR -a NEW -b OLD [-rounds 7] [-queries 200]
//
// With -mem-trace FILE every start's resident memory (total, anonymous,
// file-backed) is sampled every 20 ms and written to FILE, to see when
// the peak happens.
//
// The vault is used in place and never written (serve is read-only).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/bench/queries"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func main() {
	c := config{}
	flag.StringVar(&c.vault, "vault", "", "vault to start on (required; used in place, read only)")
	flag.StringVar(&c.bin[0], "a", "", "binary A (required)")
	flag.StringVar(&c.bin[1], "b", "", "binary B (optional: without it only A is measured)")
	flag.StringVar(&c.ix[0], "index-a", "", "index file of A to reuse (default: built with A's index in a temporary folder)")
	flag.StringVar(&c.ix[1], "index-b", "", "index file of B to reuse")
	flag.IntVar(&c.rounds, "rounds", 7, "starts per binary")
	flag.IntVar(&c.queries, "queries", 0, "sampled queries timed after each start (0: none)")
	flag.BoolVar(&c.cold, "cold", false, "delete the engine state before each start: time starts from the files")
	flag.StringVar(&c.trace, "mem-trace", "", "write every start's resident memory over time (sampled every 20 ms) to this CSV file")
	flag.Parse()
	if c.vault == "" || c.bin[0] == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "startbench:", err)
		os.Exit(1)
	}
}

type config struct {
	vault, tmp      string
	bin, ix         [2]string
	rounds, queries int
	cold            bool
	trace           string // -mem-trace file ("" none)
	traceOut        io.Writer
}

// sample is one start of one binary.
type sample struct {
	ready time.Duration
	lat   []time.Duration
	rssKB int // peak (VmHWM)
	// nowKB and fileKB are the RSS after the queries, and its part that
	// maps files (the binary, the engine state).
	nowKB, fileKB int
	// readyCPU is the server's CPU time (user+sys) until the first search
	// was answered, queryCPU its CPU time over the sampled queries: unlike
	// wall times they hardly move with the machine's load.
	readyCPU, queryCPU time.Duration
	// mem is what sampling the RSS every 20 ms found: the anonymous
	// peak, when, and the anonymous RSS at ready.
	mem memSummary
}

func run(ctx context.Context, c config) error {
	tmp, err := os.MkdirTemp("", "startbench-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.tmp = tmp
	n := 1
	if c.bin[1] != "" {
		n = 2
	}
	for i := range n {
		if c.ix[i] == "" {
			if c.ix[i], err = buildIndex(c.bin[i], c.vault, filepath.Join(tmp, fmt.Sprintf("%c.db", 'a'+i))); err != nil {
				return err
			}
		}
	}
	if c.trace != "" {
		f, err := os.Create(c.trace)
		if err != nil {
			return err
		}
		defer f.Close()
		c.traceOut = f
	}
	var qs []string
	if c.queries > 0 {
		snap, err := vault.Load(ctx, c.vault, vault.Options{})
		if err != nil {
			return err
		}
		qs = queries.FromVault(snap, c.queries)
	}
	fmt.Printf("vault %s, %s, %d rounds, %d queries per start, cold %t\n\n", c.vault, time.Now().UTC().Format(time.RFC3339), c.rounds, len(qs), c.cold)
	got := make([][]sample, n)
	for r := range c.rounds {
		for i := range n {
			if c.cold {
				if err := os.Remove(index.StatePath(c.ix[i])); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
			s, err := once(ctx, c, i, r, qs)
			if err != nil {
				return fmt.Errorf("%s round %d: %w", c.bin[i], r, err)
			}
			got[i] = append(got[i], s)
		}
	}
	fmt.Println("| binary | ready median (all) | CPU to ready, median | peak RSS median | RSS after the queries | search p50 / p99 (all starts) | server CPU per query, median | peak anonymous RSS, median (starts peaking before ready) | anonymous RSS at ready, median |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for i := range n {
		report(c.bin[i], got[i])
	}
	return nil
}

// buildIndex builds the index (and the engine state) of bin at ix.
func buildIndex(bin, root, ix string) (string, error) {
	if out, err := exec.Command(bin, "index", "--vault", root, "--index-file", ix).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s index: %v\n%s", bin, err, out)
	}
	return ix, nil
}

// once starts bin, times the first answered search, then qs, and stops
// it (it saves its state on the way out when that changed).
func once(ctx context.Context, c config, i, round int, qs []string) (sample, error) {
	bin := c.bin[i]
	cmd := exec.Command(bin, "serve", "--vault", c.vault, "--persistent-index", "--index-file", c.ix[i]) // watch on, as livebench
	t := time.Now()
	tr := traceMem(t, 20*time.Millisecond)
	stopTrace := sync.OnceValue(tr.finish)
	defer stopTrace()
	client := mcp.NewClient(&mcp.Implementation{Name: "startbench", Version: "1"}, nil)
	// Time to exit: at 107k notes, saving the engine state on the way out
	// takes longer than the default 5 s before SIGTERM.
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Minute}, nil)
	if err != nil {
		return sample{}, err
	}
	defer cmd.Wait()
	defer cs.Close()
	if err := search(ctx, cs, "warm start"); err != nil {
		return sample{}, err
	}
	s := sample{ready: time.Since(t)}
	tr.markReady()
	if s.readyCPU, err = cpuTime(cmd.Process.Pid); err != nil {
		return s, err
	}
	for _, q := range qs {
		t := time.Now()
		if err := search(ctx, cs, q); err != nil {
			return sample{}, err
		}
		s.lat = append(s.lat, time.Since(t))
	}
	if s.queryCPU, err = cpuTime(cmd.Process.Pid); err != nil {
		return s, err
	}
	s.queryCPU -= s.readyCPU
	ss := stopTrace()
	s.mem = summarize(ss, s.ready)
	if c.traceOut != nil {
		writeTrace(c.traceOut, fmt.Sprintf("%s round %d", bin, round), s.ready, ss)
		writeMaps(c.traceOut, cmd.Process.Pid)
	}
	for field, dst := range map[string]*int{"VmHWM:": &s.rssKB, "VmRSS:": &s.nowKB, "RssFile:": &s.fileKB} {
		if *dst, err = status(cmd.Process.Pid, field); err != nil {
			return s, err
		}
	}
	return s, nil
}

func search(ctx context.Context, cs *mcp.ClientSession, q string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q, "limit": 10}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error for %q", q)
	}
	return nil
}

// cpuTime reads the user and system time of process pid so far, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count from after it.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// status reads a field of /proc/PID/status, in kB.
func status(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			var kb int
			_, err := fmt.Sscanf(rest, "%d", &kb)
			return kb, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

func report(bin string, ss []sample) {
	var ready, lat, cpu, qcpu []time.Duration
	var rss, now, file, anon, anonReady []int
	early := 0
	for _, s := range ss {
		anon, anonReady = append(anon, s.mem.peakAnon), append(anonReady, s.mem.anonAtReady)
		if s.mem.inStart {
			early++
		}
		ready, rss, lat = append(ready, s.ready), append(rss, s.rssKB), append(lat, s.lat...)
		cpu = append(cpu, s.readyCPU)
		if len(s.lat) > 0 {
			qcpu = append(qcpu, s.queryCPU/time.Duration(len(s.lat)))
		}
		now, file = append(now, s.nowKB), append(file, s.fileKB)
	}
	all := make([]string, len(ready))
	for i, d := range ready {
		all[i] = fmt.Sprintf("%.0f", ms(d))
	}
	slices.Sort(rss)
	slices.Sort(now)
	slices.Sort(file)
	slices.Sort(anon)
	slices.Sort(anonReady)
	q := "—"
	if len(lat) > 0 {
		q = fmt.Sprintf("%.1f / %.1f ms (%d)", ms(pct(lat, 50)), ms(pct(lat, 99)), len(lat))
	}
	qc := "—"
	if len(qcpu) > 0 {
		qc = fmt.Sprintf("%.1f ms", ms(pct(qcpu, 50)))
	}
	fmt.Printf("| %s | %.0f ms (%s) | %.0f ms | %d MB | %d MB (%d MB of files) | %s | %s | %d MB (%d of %d) | %d MB |\n", bin, ms(pct(ready, 50)), strings.Join(all, ", "),
		ms(pct(cpu, 50)), rss[len(rss)/2]/1024, now[len(now)/2]/1024, file[len(file)/2]/1024, q, qc,
		anon[len(anon)/2]/1024, early, len(ss), anonReady[len(anonReady)/2]/1024)
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
