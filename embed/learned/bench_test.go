package learned

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/enquire-mcp/enquire-mcp/analysis"
)

// zipfCorpus returns n texts of words drawn from a Zipf-distributed
// vocabulary of vocab made-up words, each text about one of 50 topics
// (a topic shifts which words are frequent), deterministically.
func zipfCorpus(n, words, vocab int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 1, uint64(vocab-1))
	texts := make([]string, n)
	var b strings.Builder
	for i := range texts {
		b.Reset()
		topic := uint64(i % 50)
		for w := 0; w < words; w++ {
			id := z.Uint64()
			if w%3 == 0 {
				id = (id + topic*97) % uint64(vocab)
			}
			fmt.Fprintf(&b, "w%dx ", id)
		}
		texts[i] = b.String()
	}
	return texts
}

// BenchmarkLearn learns a model from 10,000 synthetic chunks of 60 words
// (600,000 tokens). Random Zipf text has far more distinct co-occurring
// pairs than prose, so this is slower per token than a real vault
// (docs/benchmarks.md has build-embeddings on zettelkasten).
func BenchmarkLearn(b *testing.B) {
	texts := zipfCorpus(10000, 60, 20000)
	an := analysis.New()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Learn(context.Background(), texts, an, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
