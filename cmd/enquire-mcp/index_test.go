package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// bigVault writes n deterministic notes (enough for an index run to take a
// while) and returns the folder.
func bigVault(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	words := strings.Fields("apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [t%d]\n---\n# Note %d\n\n", i%17, i)
		for j := range 120 {
			b.WriteString(words[(i*7+j*13)%len(words)])
			b.WriteByte(' ')
			if j%20 == 19 {
				b.WriteString("\n\n")
			}
		}
		fmt.Fprintf(&b, "\nunique%d [[Note %d]]\n", i, (i+1)%n)
		sub := filepath.Join(dir, fmt.Sprintf("f%d", i%10))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("Note %d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var summaryRE = regexp.MustCompile(`files: (\d+) added, (\d+) updated, (\d+) renamed, (\d+) deleted, (\d+) unchanged`)

func runIndexCmd(t *testing.T, bin string, args ...string) []int {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"index"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("index %v: %v\n%s", args, err, out)
	}
	m := summaryRE.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no summary in %q", out)
	}
	nums := make([]int, 5)
	for i := range nums {
		nums[i], _ = strconv.Atoi(m[i+1])
	}
	return nums
}

func checkIndex(t *testing.T, root, path string) int {
	t.Helper()
	real, _ := vault.RealRoot(root)
	ix, err := index.Open(context.Background(), path, index.NewSettings(real, false, chunk.DefaultOptions), false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Rebuilt != "" {
		t.Fatalf("index was rebuilt on open: %s", ix.Rebuilt)
	}
	if err := ix.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := ix.BM25().Search(context.Background(), "unique123 apple", 10000, index.BM25Params{K1: rankers.BM25K1, B: rankers.BM25B}, func(index.Hit) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIndexSurvivesKill kills `enquire-mcp index` at several moments; the
// next run must repair the index to exactly what a clean run builds.
func TestIndexSurvivesKill(t *testing.T) {
	bin := buildBinary(t)
	const n = 3000
	root := bigVault(t, n)
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	if got := runIndexCmd(t, bin, "--vault", root, "--index-file", fresh); got[0] != n {
		t.Fatalf("fresh run summary %v", got)
	}
	want := checkIndex(t, root, fresh)
	killed := 0
	for _, delay := range []time.Duration{20 * time.Millisecond, 150 * time.Millisecond, 500 * time.Millisecond, 1200 * time.Millisecond} {
		path := filepath.Join(t.TempDir(), "killed.db")
		cmd := exec.Command(bin, "index", "--vault", root, "--index-file", path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		_ = cmd.Process.Kill()
		if err := cmd.Wait(); err != nil {
			killed++ // it died mid-run rather than finishing first
		}
		got := runIndexCmd(t, bin, "--vault", root, "--index-file", path)
		if got[0]+got[1]+got[4] != n || got[3] != 0 {
			t.Fatalf("after a kill at %v: repair summary %v, want %d files in all", delay, got, n)
		}
		if again := runIndexCmd(t, bin, "--vault", root, "--index-file", path); again[4] != n {
			t.Fatalf("after repair, a resync should find %d unchanged: %v", n, again)
		}
		if got := checkIndex(t, root, path); got != want {
			t.Fatalf("after a kill at %v: %d hits, a clean index gives %d", delay, got, want)
		}
	}
	if killed < 2 {
		t.Fatalf("only %d of the runs were killed before finishing; the test needs a bigger vault", killed)
	}
}
