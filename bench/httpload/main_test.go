package main

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRefusesNonLoopbackTargets(t *testing.T) {
	for _, u := range []string{"http://example.com/mcp", "http://10.0.0.1:8765/mcp", "http://127.0.0.1.example.com/mcp"} {
		err := run(context.Background(), config{url: u, vault: "../../testdata/vault", clients: 1, duration: time.Second}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: err = %v", u, err)
		}
	}
	err := run(context.Background(), config{url: "http://127.0.0.1:1/mcp", vault: "../../testdata/vault", clients: 1, duration: time.Hour}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--duration") {
		t.Errorf("unbounded duration: %v", err)
	}
}

func TestMixIs70_20_10(t *testing.T) {
	notes, err := noteNames("../../testdata/vault")
	if err != nil || len(notes) < 10 {
		t.Fatalf("notes %d %v", len(notes), err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	count := map[family]int{}
	const n = 20000
	for range n {
		fam, name, args := pick(rng, notes)
		count[fam]++
		if name == "" || len(args) == 0 {
			t.Fatalf("empty call %s %v", name, args)
		}
		if q, ok := args["query"].(string); ok && strings.TrimSpace(q) == "" {
			t.Fatal("empty query")
		}
	}
	for fam, want := range map[family]float64{famSearch: 0.7, famRead: 0.2, famGraph: 0.1} {
		if got := float64(count[fam]) / n; got < want-0.02 || got > want+0.02 {
			t.Errorf("%s: %.3f of calls, want %.2f", fam, got, want)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		n, permille int
		want        time.Duration
	}{
		{1000, 500, 500 * time.Millisecond},
		{1000, 990, 990 * time.Millisecond},
		{1000, 999, 999 * time.Millisecond},
		{1000, 1000, 1000 * time.Millisecond},
		{100, 990, 99 * time.Millisecond},
		{100, 999, 100 * time.Millisecond}, // p99.9 of 100 calls is the slowest
		{1, 500, time.Millisecond},
	} {
		if got := pct(ds[:tc.n], tc.permille); got != tc.want {
			t.Errorf("n=%d: %d‰ = %s, want %s", tc.n, tc.permille, got, tc.want)
		}
	}
}

func TestEditRewritesScratchNotes(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	res := edit(ctx, dir, 20*time.Millisecond)
	entries, err := os.ReadDir(filepath.Join(dir, editFolder))
	if res.err != nil || err != nil || res.n < 3 || len(entries) != min(res.n, 10) {
		t.Fatalf("edits %+v, files %d, err %v", res, len(entries), err)
	}
	if res := edit(ctx, "", time.Millisecond); res.n != 0 || res.err != nil {
		t.Fatalf("no --edit-vault: %+v", res)
	}
}

// TestReportWithoutWarmup checks that --warmup adds percentiles computed
// without the calls sent during the warm-up, and keeps them in the totals.
func TestReportWithoutWarmup(t *testing.T) {
	var rs []sample
	for i := range 100 {
		rs = append(rs, sample{fam: famSearch, d: time.Duration(i+1) * time.Millisecond})
	}
	for range 10 {
		rs = append(rs, sample{fam: famSearch, d: time.Second, warm: true})
	}
	tests := []struct {
		warmup time.Duration
		want   []string
		absent string
	}{
		{0, []string{"calls 110,", "max  1000.0 ms"}, "without the calls"},
		{time.Second, []string{"calls 110,", "max  1000.0 ms", "without the calls sent in the first 1s:\nsearch     n=100     p50    50.0 ms", "max   100.0 ms"}, ""},
	}
	for _, tc := range tests {
		var b strings.Builder
		report(&b, config{clients: 1, warmup: tc.warmup}, [][]sample{rs}, time.Second, "")
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("warmup %s: report lacks %q:\n%s", tc.warmup, w, b.String())
			}
		}
		if tc.absent != "" && strings.Contains(b.String(), tc.absent) {
			t.Errorf("warmup %s: report has %q:\n%s", tc.warmup, tc.absent, b.String())
		}
	}
}
