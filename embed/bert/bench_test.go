package bert_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed/bert"
	"github.com/enquire-mcp/enquire-mcp/embed/onnx/onnxgen"
)

// The benchmarks run a random-weight encoder of all-MiniLM-L6-v2's shape
// (22M parameters): the speed is the real model's.

var miniLM struct {
	once sync.Once
	enc  *bert.Encoder
	err  error
}

func benchEncoder(b *testing.B) *bert.Encoder {
	b.Helper()
	miniLM.once.Do(func() {
		m, err := onnxgen.New(onnxgen.MiniLM())
		if err != nil {
			miniLM.err = err
			return
		}
		miniLM.enc, miniLM.err = bert.New(m.Weights())
	})
	if miniLM.err != nil {
		b.Fatal(miniLM.err)
	}
	return miniLM.enc
}

func randomSeqs(n, length int) [][]int32 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][]int32, n)
	for i := range out {
		out[i] = make([]int32, length)
		for j := range out[i] {
			out[i][j] = int32(1000 + rng.IntN(29000))
		}
	}
	return out
}

// BenchmarkChunks embeds batches of 8 chunks of 200 tokens, as
// build-embeddings does.
func BenchmarkChunks(b *testing.B) {
	enc := benchEncoder(b)
	seqs := randomSeqs(8, 200)
	b.ResetTimer()
	for b.Loop() {
		if _, err := enc.Embed(seqs, bert.Mean); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*8*200)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkQuery embeds one query of 10 tokens ([CLS] and [SEP]
// included) and reports the median latency.
func BenchmarkQuery(b *testing.B) {
	enc := benchEncoder(b)
	seqs := randomSeqs(1, 10)
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := enc.Embed(seqs, bert.Mean); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
}

// BenchmarkKernels embeds the chunks with each kernel set this CPU runs.
func BenchmarkKernels(b *testing.B) {
	m, err := onnxgen.New(onnxgen.MiniLM())
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range bert.Kernels() {
		if name == "go" {
			continue // minutes per batch
		}
		b.Run(name, func(b *testing.B) {
			enc, err := bert.NewWithKernel(m.Weights(), name)
			if err != nil {
				b.Fatal(err)
			}
			seqs := randomSeqs(8, 200)
			for b.Loop() {
				if _, err := enc.Embed(seqs, bert.Mean); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*8*200)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkQueryKernels embeds a 10-token query with each kernel set,
// the plain-Go fallback included.
func BenchmarkQueryKernels(b *testing.B) {
	m, err := onnxgen.New(onnxgen.MiniLM())
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range bert.Kernels() {
		b.Run(name, func(b *testing.B) {
			enc, err := bert.NewWithKernel(m.Weights(), name)
			if err != nil {
				b.Fatal(err)
			}
			seqs := randomSeqs(1, 10)
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := enc.Embed(seqs, bert.Mean); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1e3, "p50-ms")
		})
	}
}
