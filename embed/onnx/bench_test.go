//go:build ort

package onnx_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed"
	"github.com/enquire-mcp/enquire-mcp/embed/models"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
	"github.com/enquire-mcp/enquire-mcp/embed/tokenizer/tokenizertest"
)

// The benchmarks run random-weight models of all-MiniLM-L6-v2's shape
// (fp32, 22M parameters) on texts of real bert-base-uncased words: the
// speed is the real model's, the vectors mean nothing. Compare with
// BenchmarkBuiltinDocuments, the pure-Go built-in model, in the same run.

const vocabPath = "../tokenizer/testdata/bert-base-uncased/vocab.json"

var benchModels struct {
	once          sync.Once
	embed, rerank string
	words         []string
	err           error
}

// miniLM writes the two MiniLM-shaped models once per run.
func miniLM(b *testing.B) (embedDir, rerankDir string, words []string) {
	b.Helper()
	bm := &benchModels
	bm.once.Do(func() {
		js, vocab, err := tokenizertest.BertBaseUncased(vocabPath)
		if err != nil {
			bm.err = err
			return
		}
		for _, v := range vocab[1999:] { // plain words, past punctuation and digits
			if !strings.HasPrefix(v, "##") && !strings.HasPrefix(v, "[") && len(v) > 2 {
				bm.words = append(bm.words, v)
			}
		}
		dir, err := os.MkdirTemp("", "ortbench")
		if err != nil {
			bm.err = err
			return
		}
		for _, cross := range []bool{false, true} {
			c := onnxgen.MiniLM()
			c.CrossEncoder = cross
			m, err := onnxgen.New(c)
			if err != nil {
				bm.err = err
				return
			}
			out := filepath.Join(dir, map[bool]string{false: "minilm", true: "minilm-cross"}[cross])
			if bm.err = m.WriteFolder(out, js, ""); bm.err != nil {
				return
			}
			if cross {
				bm.rerank = out
			} else {
				bm.embed = out
			}
		}
	})
	if bm.err != nil {
		b.Fatal(bm.err)
	}
	return bm.embed, bm.rerank, bm.words
}

// texts returns n texts of the given number of words (one token each).
func texts(words []string, n, length int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		w := make([]string, length)
		for k := range w {
			w[k] = words[rng.IntN(len(words))]
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}

func library(b *testing.B) string {
	lib := os.Getenv(onnx.LibraryEnv)
	if lib == "" {
		b.Fatalf("set %s to libonnxruntime", onnx.LibraryEnv)
	}
	return lib
}

// BenchmarkEmbedDocuments embeds chunks of ~200 tokens (198 words plus
// [CLS] and [SEP]) in batches of 8, as build-embeddings does.
func BenchmarkEmbedDocuments(b *testing.B) {
	dir, _, words := miniLM(b)
	for _, bc := range []struct {
		name  string
		arena bool
	}{{"build-embeddings", true}, {"serve", false}} {
		b.Run(bc.name, func(b *testing.B) {
			e, err := onnx.Open(context.Background(), dir, onnx.Options{Library: library(b), Arena: bc.arena})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			benchEmbed(b, e, texts(words, 32, 198), embed.Document)
		})
	}
	// The same model and texts in the pure-Go encoder, in the same run.
	b.Run("purego", func(b *testing.B) {
		e, err := onnx.OpenPureGo(context.Background(), dir, onnx.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchEmbed(b, e, texts(words, 32, 198), embed.Document)
	})
}

// BenchmarkBuiltinDocuments is the same work for the built-in pure-Go
// model (the distilled static table), the baseline of the ratio in
// docs/benchmarks.md.
func BenchmarkBuiltinDocuments(b *testing.B) {
	_, _, words := miniLM(b)
	e, err := models.Open(context.Background(), "builtin", models.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchEmbed(b, e, texts(words, 32, 198), embed.Document)
}

func benchEmbed(b *testing.B, e embed.Embedder, docs []string, kind embed.Kind) {
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), docs, kind); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "chunks/s")
	b.ReportMetric(float64(b.N*len(docs)*200)/b.Elapsed().Seconds(), "tokens/s")
	// On a loaded machine wall time mostly measures the other processes;
	// the process's CPU time (every ONNX Runtime thread included) does not.
	b.ReportMetric(float64(b.N*len(docs))/(cpuSeconds()-cpu0), "chunks/cpu-s")
}

// cpuSeconds is the user+system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkEmbedQuery embeds one ~10-token query, in ONNX Runtime and
// in the pure-Go encoder, and reports the median latency too.
func BenchmarkEmbedQuery(b *testing.B) {
	dir, _, words := miniLM(b)
	for _, engine := range []string{"ort", "purego"} {
		b.Run(engine, func(b *testing.B) {
			var e embed.Embedder
			var err error
			if engine == "ort" {
				e, err = onnx.Open(context.Background(), dir, onnx.Options{Library: library(b)})
			} else {
				e, err = onnx.OpenPureGo(context.Background(), dir, onnx.Options{})
			}
			if err != nil {
				b.Fatal(err)
			}
			q := texts(words, 1, 8) // + [CLS] and [SEP]
			var lat []time.Duration
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				if _, err := e.Embed(context.Background(), q, embed.Query); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
		})
	}
}

// BenchmarkRerank50 scores 50 passages of ~200 tokens for one query.
func BenchmarkRerank50(b *testing.B) {
	_, dir, words := miniLM(b)
	r, err := onnx.OpenReranker(context.Background(), dir, onnx.Options{Library: library(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	passages := texts(words, 50, 190)
	q := texts(words, 1, 8)[0]
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Score(context.Background(), q, passages); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu0)*1e3/float64(b.N), "cpu-ms/op")
}
