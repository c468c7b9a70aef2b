package rankers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/chunk"
	"github.com/enquire-mcp/enquire-mcp/rankers"
	"github.com/enquire-mcp/enquire-mcp/vault"
)

// Size of the synthetic benchmark vault: a large personal vault of short
// notes.
const (
	benchNotes     = 13000
	benchWords     = 150 // body words per note
	benchVocab     = 40000
	benchQueries   = 64
	benchZipfS     = 1.07 // Zipf exponent of word frequencies
	benchZipfV     = 2.7
	benchCandLists = 3
	benchCandLen   = 100
)

type benchCorpus struct {
	an      *analysis.Analyzer
	notes   []*vault.Note
	chunks  [][]chunk.Chunk
	queries []string
}

var (
	benchOnce sync.Once
	benchData benchCorpus
)

// benchWordList returns benchVocab distinct pronounceable words (2-4
// syllables), deterministic.
func benchWordList(rng *rand.Rand) []string {
	const cons, vows = "bcdfghjklmnprstvz", "aeiou"
	seen := make(map[string]bool, benchVocab)
	words := make([]string, 0, benchVocab)
	for len(words) < benchVocab {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteByte(cons[rng.IntN(len(cons))])
			b.WriteByte(vows[rng.IntN(len(vows))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// corpusForBench builds (once) ~13,000 notes of ~150 Zipf-distributed
// words with a title, a tag line, a heading or two and paragraphs.
func corpusForBench(b *testing.B) *benchCorpus {
	b.Helper()
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(2026, 13))
		words := benchWordList(rng)
		zipf := rand.NewZipf(rng, benchZipfS, benchZipfV, benchVocab-1)
		word := func() string { return words[zipf.Uint64()] }
		d := benchCorpus{an: analysis.New()}
		var sb strings.Builder
		for i := range benchNotes {
			sb.Reset()
			if i%3 == 0 {
				fmt.Fprintf(&sb, "---\ntags: [%s]\nstatus: %s\n---\n", word(), word())
			}
			for w := range benchWords {
				switch {
				case w == 0 || w == 70 && i%2 == 0:
					fmt.Fprintf(&sb, "## %s %s\n\n", word(), word())
				case w%25 == 24:
					sb.WriteString(".\n\n")
				}
				sb.WriteString(word())
				sb.WriteByte(' ')
			}
			path := fmt.Sprintf("folder%d/%s %s %d.md", i%40, word(), word(), i)
			n, _ := vault.Parse(path, []byte(sb.String()))
			d.notes = append(d.notes, n)
			d.chunks = append(d.chunks, chunk.Split(n, chunk.Options{}))
		}
		for range benchQueries {
			q := make([]string, 2+rng.IntN(3))
			for j := range q {
				q[j] = word()
			}
			d.queries = append(d.queries, strings.Join(q, " "))
		}
		benchData = d
	})
	return &benchData
}

func BenchmarkTFIDFBuild(b *testing.B) {
	d := corpusForBench(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rankers.NewTFIDF(context.Background(), d.an, d.notes, d.chunks, rankers.DefaultFieldWeights); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(d.notes)), "notes")
}

func BenchmarkTFIDFRank(b *testing.B) {
	d := corpusForBench(b)
	idx, err := rankers.NewTFIDF(context.Background(), d.an, d.notes, d.chunks, rankers.DefaultFieldWeights)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		block bool
		allow func(int) bool
	}{
		{"notes", false, nil},
		{"blocks", true, nil},
		{"notes-allow-half", false, func(n int) bool { return n%2 == 0 }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var found int
			i := 0
			for b.Loop() {
				got, err := idx.Rank(context.Background(), rankers.Request{
					Query: d.queries[i%len(d.queries)], Limit: 50, Block: bc.block, Allow: bc.allow,
				})
				if err != nil {
					b.Fatal(err)
				}
				found += len(got)
				i++
			}
			if found == 0 {
				b.Fatal("no query found anything")
			}
		})
	}
}

func BenchmarkFuse(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	signals := []string{rankers.SignalBM25, rankers.SignalTFIDF, rankers.SignalEmbeddings}
	lists := make([]rankers.Ranked, benchCandLists)
	for i := range lists {
		lists[i].Signal = signals[i]
		// Lists overlap: 100 of 250 notes each.
		for _, n := range rng.Perm(250)[:benchCandLen] {
			lists[i].Candidates = append(lists[i].Candidates, rankers.Candidate{Note: n, Chunk: rankers.NoChunk, Score: rng.Float64()})
		}
	}
	weights := map[string]float64{rankers.SignalEmbeddings: 1.5}
	b.ReportAllocs()
	for b.Loop() {
		if out := rankers.Fuse(lists, rankers.DefaultRRFK, weights); len(out) < benchCandLen {
			b.Fatal(len(out))
		}
	}
}

func BenchmarkTopK(b *testing.B) {
	for _, bc := range []struct{ n, k int }{{benchNotes, 10}, {benchNotes, 200}, {benchNotes, benchNotes}, {100, 50}} {
		b.Run(fmt.Sprintf("n=%d/k=%d", bc.n, bc.k), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			src := randomCandidates(rng, bc.n, false)
			scratch := make([]rankers.Candidate, len(src))
			b.ReportAllocs()
			for b.Loop() {
				copy(scratch, src) // TopK works in place
				if got := rankers.TopK(scratch, bc.k); len(got) != min(bc.k, bc.n) {
					b.Fatal(len(got))
				}
			}
		})
	}
}
