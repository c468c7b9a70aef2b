package dataview

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

var (
	benchOnce  sync.Once
	benchSnap  *vault.Snapshot
	benchGraph *graph.Graph
	benchErr   error
)

// benchVault loads the vault named by ENQUIRE_BENCH_VAULT (default: the
// shared 13,415-note zettelkasten) once; benchmarks skip without it.
func benchVault(b *testing.B) (*vault.Snapshot, *graph.Graph) {
	b.Helper()
	dir := vaulttest.BenchVault(b)
	benchOnce.Do(func() {
		benchSnap, benchErr = vault.Load(context.Background(), dir, vault.Options{})
		if benchErr == nil {
			benchGraph = graph.New(benchSnap)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSnap, benchGraph
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkRun(b *testing.B) {
	snap, g := benchVault(b)
	for _, query := range []string{
		`LIST`,
		`LIST FROM #security`,
		`LIST FROM "Security" WHERE file.mtime > date(today) - dur(7 days)`,
		`LIST WHERE contains(tags, "web")`,
		`TABLE file.name, length(file.inlinks) AS n SORT length(file.inlinks) DESC LIMIT 10`,
		`LIST SORT file.name`,
		`TABLE aliases, file.tags WHERE length(file.outlinks) > 20`,
		`LIST FROM [[Side Channel Attack]]`,
	} {
		q, err := Parse(query)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(query, func(b *testing.B) {
			now := time.Now()
			ix := NewColumns(snap, g, now.Location())                              // as the server keeps one per snapshot
			if _, err := q.RunColumns(context.Background(), ix, now); err != nil { // build the columns
				b.Fatal(err)
			}
			start := cpuTime()
			for b.Loop() {
				if _, err := q.RunColumns(context.Background(), ix, now); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time is steadier than wall time on a shared machine.
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
