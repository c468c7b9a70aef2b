// Command livebench measures the live vault on a copy of a real vault:
// the work of one changed note (in process, as package service applies
// it), one rescan, memory after many edits, and, over MCP stdio against
// the real binary with a persistent index, the start resumed from the
// saved engine state, edit-to-searchable latency, a
// 1,000-file change set with searches running, and idle CPU.
//
//	go run ./bench/livebench -vault ../shared/datasets/vaults/zettelkasten
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/service"
)

func main() {
	src := flag.String("vault", "", "vault to copy and measure (required)")
	edits := flag.Int("edits", 50, "single-note edits to time")
	churn := flag.Int("churn", 2000, "random edits before the memory comparison")
	storm := flag.Int("storm", 1000, "files changed at once")
	startsOnly := flag.Bool("starts", false, "only time the starts over MCP stdio (cold, then resumed from the engine state)")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "livebench: -vault is required")
		os.Exit(2)
	}
	if err := run(context.Background(), *src, *edits, *churn, *storm, *startsOnly); err != nil {
		fmt.Fprintln(os.Stderr, "livebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, src string, edits, churn, storm int, startsOnly bool) error {
	tmp, err := os.MkdirTemp("", "livebench-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "vault")
	if err := copyTree(src, root); err != nil {
		return err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return err
	}
	fmt.Printf("vault %s (copied), %s, GOMAXPROCS %d\n\n", src, time.Now().UTC().Format(time.RFC3339), runtime.GOMAXPROCS(0))
	if startsOnly {
		bin, ixFile, err := buildAndIndex(tmp, root)
		if err != nil {
			return err
		}
		return starts(ctx, bin, root, ixFile)
	}
	if err := inProcess(ctx, root, filepath.Join(tmp, "inproc.db"), edits); err != nil {
		return err
	}
	if err := memory(ctx, root, churn); err != nil {
		return err
	}
	return overStdio(ctx, tmp, root, edits, storm)
}

// inProcess times one single-note change as the server applies it
// (service.Vault.Reload: re-read, scoped index sync, engine update), with
// the index's share from the service's debug log, and one rescan.
func inProcess(ctx context.Context, root, ixPath string, edits int) error {
	rec := &changeLog{}
	v, err := service.Open(ctx, service.Config{Root: root, Logger: slog.New(rec),
		Search: search.Options{Chunk: chunk.DefaultOptions}, Index: service.IndexConfig{Path: ixPath}})
	if err != nil {
		return err
	}
	defer v.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var total []time.Duration
	for i := range edits {
		notes := v.Engine().Snapshot().Notes
		n := notes[rng.IntN(len(notes))]
		if err := appendWord(root, n.Path, fmt.Sprintf("zqxpart%d", i)); err != nil {
			return err
		}
		t0 := time.Now()
		if _, err := v.Reload(ctx, []string{n.Path}); err != nil {
			return err
		}
		total = append(total, time.Since(t0))
	}
	fts := rec.indexTimes()
	fmt.Printf("## One changed note, in process (%d edits, p50 / p95)\n\n", edits)
	fmt.Println("| part | p50 | p95 |\n|---|---|---|")
	fmt.Printf("| FTS5 (scoped Sync, whole ms from the log) | %s | %s |\n", ms(pct(fts, 50)), ms(pct(fts, 95)))
	fmt.Printf("| total applied (Vault.Reload: Snapshot.Update + Sync + Engine.Update) | %s | %s |\n", ms(pct(total, 50)), ms(pct(total, 95)))
	snap := v.Engine().Snapshot()
	var polls []time.Duration
	for range 10 {
		t := time.Now()
		if _, err := snap.Changed(ctx); err != nil {
			return err
		}
		polls = append(polls, time.Since(t))
	}
	fmt.Printf("\nOne rescan with nothing changed (Snapshot.Changed, the --poll work): p50 %s, max %s (10 runs)\n\n", ms(pct(polls, 50)), ms(pct(polls, 100)))
	return nil
}

// changeLog is a slog handler that keeps the index time of every change
// the service applied (its "live vault: change applied" debug line).
type changeLog struct {
	mu  sync.Mutex
	fts []time.Duration
}

// Enabled implements slog.Handler: every level (the line is debug).
func (c *changeLog) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs implements slog.Handler.
func (c *changeLog) WithAttrs([]slog.Attr) slog.Handler { return c }

// WithGroup implements slog.Handler.
func (c *changeLog) WithGroup(string) slog.Handler { return c }

// Handle implements slog.Handler.
func (c *changeLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "live vault: change applied" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "index_ms" {
			c.mu.Lock()
			c.fts = append(c.fts, time.Duration(a.Value.Int64())*time.Millisecond)
			c.mu.Unlock()
		}
		return true
	})
	return nil
}

func (c *changeLog) indexTimes() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.fts)
}

// memory compares the heap after churn random edits, applied one by one
// as the server applies them, with a fresh load of the same files.
func memory(ctx context.Context, root string, churn int) error {
	cfg := service.Config{Root: root, Search: search.Options{Chunk: chunk.DefaultOptions}}
	v, err := service.Open(ctx, cfg)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Now()
	for i := range churn {
		notes := v.Engine().Snapshot().Notes
		n := notes[rng.IntN(len(notes))]
		if err := appendWord(root, n.Path, fmt.Sprintf("churn%d word%d", i, rng.IntN(500))); err != nil {
			return err
		}
		if _, err := v.Reload(ctx, []string{n.Path}); err != nil {
			v.Close()
			return err
		}
	}
	took := time.Since(start)
	live := heap()
	runtime.KeepAlive(v) // measured while alive
	if err := v.Close(); err != nil {
		return err
	}
	fresh, err := service.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer fresh.Close()
	freshHeap := heap() // the live engine is no longer referenced
	runtime.KeepAlive(fresh)
	fmt.Printf("## Memory after %d edits (in process, TF-IDF engine, heap in use after GC)\n\n", churn)
	fmt.Printf("live engine after the edits: %.1f MiB; fresh engine on the same files: %.1f MiB; ratio %.3f (%.1f ms per edit)\n\n",
		mib(live), mib(freshHeap), float64(live)/float64(freshHeap), float64(took.Milliseconds())/float64(churn))
	return nil
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// overStdio drives the real binary.
func overStdio(ctx context.Context, tmp, root string, edits, storm int) error {
	bin, ixFile, err := buildAndIndex(tmp, root)
	if err != nil {
		return err
	}
	if err := starts(ctx, bin, root, ixFile); err != nil {
		return err
	}
	s, err := start(ctx, bin, root, ixFile)
	if err != nil {
		return err
	}
	defer s.close()
	notes := listNotes(root)
	rng := rand.New(rand.NewPCG(5, 6))
	var lat []time.Duration
	for i := range edits {
		word := fmt.Sprintf("zqxedit%dq", i)
		p := notes[rng.IntN(len(notes))]
		t := time.Now()
		if err := appendWord(root, p, word); err != nil {
			return err
		}
		if err := s.waitFor(ctx, word, 10*time.Second); err != nil {
			return err
		}
		lat = append(lat, time.Since(t))
	}
	fmt.Printf("Edit → searchable (%d edits, from the file write to the first search that finds it, quiet period included): p50 %s, p95 %s, max %s\n\n",
		edits, ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 100)))
	if err := s.storm(ctx, root, notes, storm); err != nil {
		return err
	}
	u0, _ := cpu(s.cmd.Process.Pid)
	time.Sleep(10 * time.Second)
	u1, _ := cpu(s.cmd.Process.Pid)
	fmt.Printf("Idle for 10 s with the watcher on: %d clock ticks of CPU (utime+stime, 100 per second)\n", u1-u0)
	return nil
}

// buildAndIndex builds the binary and indexes root with it.
func buildAndIndex(tmp, root string) (bin, ixFile string, err error) {
	bin = filepath.Join(tmp, "enquire-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/enquire-mcp").CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build (run from the repository root): %v\n%s", err, out)
	}
	ixFile = filepath.Join(tmp, "serve.db")
	if out, err := exec.Command(bin, "index", "--vault", root, "--index-file", ixFile).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("index: %v\n%s", err, out)
	}
	return bin, ixFile, nil
}

// starts times a start with no engine state (from the files; it saves
// the state when it stops) and then starts resumed from that state, with
// nothing changed and with one note changed while stopped.
func starts(ctx context.Context, bin, root, ixFile string) error {
	type run struct {
		ready time.Duration
		rss   int
	}
	once := func() (run, error) {
		s, err := start(ctx, bin, root, ixFile)
		if err != nil {
			return run{}, err
		}
		r, _ := status(s.cmd.Process.Pid, "VmHWM:")
		s.close()
		s.cmd.Wait() // the state is saved when it stops
		return run{s.ready, r / 1024}, nil
	}
	// index wrote the engine state: without it, the start reads every file.
	if err := os.Remove(index.StatePath(ixFile)); err != nil {
		return err
	}
	cold, err := once()
	if err != nil {
		return err
	}
	var resumed, touched []time.Duration
	var rss []int
	notes := listNotes(root)
	for i := range 5 {
		r, err := once()
		if err != nil {
			return err
		}
		resumed, rss = append(resumed, r.ready), append(rss, r.rss)
		if err := appendWord(root, notes[i*7%len(notes)], fmt.Sprintf("zqxstopped%dq", i)); err != nil {
			return err
		}
		if r, err = once(); err != nil {
			return err
		}
		touched = append(touched, r.ready)
	}
	slices.Sort(rss)
	fmt.Printf("## Over MCP stdio (serve --persistent-index, watch on): start to first search answered\n\n")
	fmt.Printf("Start without an engine state (from the files): %s, peak RSS %d MB\n", ms(cold.ready), cold.rss)
	fmt.Printf("Start resumed from the engine state, nothing changed: median %s of 5 (%v); peak RSS median %d MB\n", ms(pct(resumed, 50)), resumed, rss[2])
	fmt.Printf("Start resumed, one note changed while stopped: median %s of 5 (%v)\n\n", ms(pct(touched, 50)), touched)
	return nil
}

type server struct {
	cmd   *exec.Cmd
	cs    *mcp.ClientSession
	ready time.Duration
}

func start(ctx context.Context, bin, root, ixFile string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--vault", root, "--persistent-index", "--index-file", ixFile)
	t := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "livebench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, cs: cs}
	if _, err := s.search(ctx, "warm start"); err != nil {
		cs.Close()
		return nil, err
	}
	s.ready = time.Since(t)
	return s, nil
}

func (s *server) close() { s.cs.Close() }

// search returns the paths of the hits.
func (s *server) search(ctx context.Context, q string) ([]string, error) {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "obsidian_search", Arguments: map[string]any{"query": q, "limit": 5}})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("tool error for %q", q)
	}
	out, _ := res.StructuredContent.(map[string]any)
	matches, _ := out["matches"].([]any)
	var paths []string
	for _, m := range matches {
		if mm, ok := m.(map[string]any); ok {
			paths = append(paths, fmt.Sprint(mm["path"]))
		}
	}
	return paths, nil
}

func (s *server) waitFor(ctx context.Context, word string, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		hits, err := s.search(ctx, word)
		if err != nil {
			return err
		}
		if len(hits) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%q was not found within %s", word, limit)
}

// storm changes n files at once (as a git checkout does) while a client
// keeps searching, and reports the time to apply and the search latency.
func (s *server) storm(ctx context.Context, root string, notes []string, n int) error {
	var lat []time.Duration
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			t := time.Now()
			if _, err := s.search(ctx, []string{"graph theory", "memory", "security protocol", "compiler"}[i%4]); err != nil {
				return
			}
			lat = append(lat, time.Since(t))
		}
	})
	time.Sleep(200 * time.Millisecond)
	t := time.Now()
	for i, p := range notes[:min(n, len(notes))] {
		if err := appendWord(root, p, fmt.Sprintf("zqxstorm%d", i)); err != nil {
			return err
		}
	}
	last := fmt.Sprintf("zqxstorm%d", min(n, len(notes))-1)
	if err := s.waitFor(ctx, last, 60*time.Second); err != nil {
		return err
	}
	// The first file was written first: found too means the whole set is in.
	if err := s.waitFor(ctx, "zqxstorm0", 60*time.Second); err != nil {
		return err
	}
	applied := time.Since(t)
	close(stop)
	wg.Wait()
	fmt.Printf("%d files changed at once: all searchable after %s; %d searches meanwhile, p50 %s, p99 %s\n\n",
		n, ms(applied), len(lat), ms(pct(lat, 50)), ms(pct(lat, 99)))
	return nil
}

func appendWord(root, rel, word string) error {
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(rel)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n%s\n", word)
	return errorsJoin(err, f.Close())
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func listNotes(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// status reads a kB field of /proc/PID/status.
func status(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field) {
			var kb int
			_, err := fmt.Sscanf(strings.TrimPrefix(l, field), "%d", &kb)
			return kb, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// cpu is utime+stime of a process in clock ticks.
func cpu(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var u, s int
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &s)
	return u + s, nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
