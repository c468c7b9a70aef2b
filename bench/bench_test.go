// Package bench holds benchmarks on real vaults. They read the vault named
// by ENQUIRE_BENCH_VAULT (default: the zettelkasten vault of the shared
// datasets next to this repository) and skip when it is absent.
//
//	ENQUIRE_BENCH_VAULT=/path/to/vault go test ./bench -bench . -benchtime 5x
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/index"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
	"github.com/enquire-mcp/enquire-mcp/vault/vaulttest"
)

func BenchmarkVaultLoad(b *testing.B) {
	dir := vaulttest.BenchVault(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := vault.Load(context.Background(), dir, vault.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEngineBuild(b *testing.B) {
	snap, err := vault.Load(context.Background(), vaulttest.BenchVault(b), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := search.New(context.Background(), snap, analysis.New(), search.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch runs the default obsidian_search request (limit 10,
// graph boost, snippets) for queries made from note titles.
func BenchmarkSearch(b *testing.B) {
	for _, gran := range []string{search.GranularityNote, search.GranularityBlock} {
		b.Run(gran, func(b *testing.B) {
			eng := engine(b)
			queries := titleQueries(eng.Snapshot(), 200)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				if _, err := eng.Search(context.Background(), search.Request{Query: q, GraphBoost: true, Granularity: gran}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var cached *search.Engine

func engine(b *testing.B) *search.Engine {
	b.Helper()
	if cached != nil {
		return cached
	}
	snap, err := vault.Load(context.Background(), vaulttest.BenchVault(b), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if cached, err = search.New(context.Background(), snap, analysis.New(), search.Options{}); err != nil {
		b.Fatal(err)
	}
	return cached
}

func titleQueries(s *vault.Snapshot, n int) []string {
	var out []string
	step := max(1, len(s.Notes)/n)
	for i := 0; i < len(s.Notes); i += step {
		if w := strings.Fields(s.Notes[i].Title); len(w) > 0 {
			out = append(out, strings.Join(w[:min(3, len(w))], " "))
		}
	}
	return out
}

// BenchmarkIndexResync measures a resync of the persistent index on a
// copy of the vault: with nothing changed, and with one note edited before
// each run. "walk" is the full `enquire-mcp index` path (stat walk + sync);
// "sync" gets the walked file list, so it times the index work alone.
func BenchmarkIndexResync(b *testing.B) {
	root := vaulttest.Copy(b, vaulttest.BenchVault(b))
	ctx := context.Background()
	real, err := vault.RealRoot(root)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(b.TempDir(), "ix.db"), index.NewSettings(real, false, chunk.DefaultOptions), false)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	sync := func(b *testing.B) index.Stats {
		src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
		if err != nil {
			b.Fatal(err)
		}
		st, err := ix.Sync(ctx, src, nil)
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	sync(b)
	notes, _, _, err := vault.Walk(ctx, real)
	if err != nil {
		b.Fatal(err)
	}
	edit := func(b *testing.B, i int) {
		f, err := os.OpenFile(notes[0].Abs(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\nedit %d\n", i)
		f.Close()
	}
	b.Run("walk/nothing-changed", func(b *testing.B) {
		for b.Loop() {
			if st := sync(b); st.Updated != 0 {
				b.Fatalf("%+v", st)
			}
		}
	})
	b.Run("walk/one-note-changed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			edit(b, i)
			i++
			b.StartTimer()
			if st := sync(b); st.Updated != 1 {
				b.Fatalf("%+v", st)
			}
		}
	})
	b.Run("sync/one-note-changed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			b.StopTimer()
			edit(b, i)
			i++
			src, err := ix.DiskSource(ctx, 0, vault.PDFReader{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if st, err := ix.Sync(ctx, src, nil); err != nil || st.Updated != 1 {
				b.Fatalf("%+v %v", st, err)
			}
		}
	})
}

// BenchmarkRescan is one --poll tick with nothing changed: the stat walk
// of the vault compared with the snapshot (issue 9's target: ≤ 50 ms on
// the 13,415-note vault).
func BenchmarkRescan(b *testing.B) {
	ctx := context.Background()
	snap, err := vault.Load(ctx, vaulttest.BenchVault(b), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		changed, err := snap.Changed(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(changed) != 0 {
			b.Fatalf("%d files changed during the benchmark", len(changed))
		}
	}
}

// BenchmarkWriteState writes the engine state of the vault: streamed to
// its destination as WriteState does, and gathered into one buffer first,
// as it was done before (the difference is a copy of the whole state).
func BenchmarkWriteState(b *testing.B) {
	ctx := context.Background()
	snap, err := vault.Load(ctx, vaulttest.BenchVault(b), vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := search.New(ctx, snap, analysis.New(), search.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		out  func() io.Writer
	}{
		{"streamed", func() io.Writer { return io.Discard }},
		{"one-buffer", func() io.Writer { return new(bytes.Buffer) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				if n, err = eng.WriteState(ctx, "bench", bc.out()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/1e6, "state-MB")
		})
	}
}
