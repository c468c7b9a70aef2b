// Package bench holds benchmarks on real vaults. They read the vault named
// by ENQUIRE_BENCH_VAULT (default: the zettelkasten vault of the shared
// datasets next to this repository) and skip when it is absent.
//
//	ENQUIRE_BENCH_VAULT=/path/to/vault go test ./bench -bench . -benchtime 5x
package bench

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/search"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

func benchVault(b *testing.B) string {
	b.Helper()
	dir := os.Getenv("ENQUIRE_BENCH_VAULT")
	if dir == "" {
		dir = "../../shared/datasets/vaults/zettelkasten"
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("benchmark vault %s not available (set ENQUIRE_BENCH_VAULT): %v", dir, err)
	}
	return dir
}

func BenchmarkVaultLoad(b *testing.B) {
	dir := benchVault(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := vault.Load(context.Background(), dir, vault.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEngineBuild(b *testing.B) {
	snap, err := vault.Load(context.Background(), benchVault(b), vault.Options{})
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
	snap, err := vault.Load(context.Background(), benchVault(b), vault.Options{})
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
