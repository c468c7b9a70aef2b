package analysis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchBytes is the size of the generated benchmark corpora.
const benchBytes = 100 << 10

var englishWords = strings.Fields(`search index query ranking document vault
note heading paragraph chunk token analyzer stemming running connection
connections studies relevance retrieval embedding vector similarity server
client protocol request response cache memory latency throughput benchmark
the a of and to in is that for with as on by this from at be are was it
configuration deployment repository function variable interface structure
knowledge management obsidian markdown frontmatter wikilink backlink graph
café naïve résumé coöperate Straße 2026 bm25 v1 HTTP JSON API don't it's
well-known state-of-the-art`)

var cjkPhrases = []string{
	"日本語の文章を検索する", "東京タワーは観光地です", "知識管理システム",
	"全文検索エンジンの実装", "中文分词和搜索排序", "向量数据库与嵌入模型",
	"한국어 형태소 분석기", "ノートの見出しと段落", "情報検索の評価指標",
}

// englishMarkdown generates ~size bytes of deterministic, realistic English
// markdown: headings, paragraphs, lists, links, inline and fenced code.
func englishMarkdown(size int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	word := func() string { return englishWords[rng.IntN(len(englishWords))] }
	sentence := func() {
		n := 6 + rng.IntN(14)
		for i := range n {
			w := word()
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			switch {
			case i == n-1:
				b.WriteString(". ")
			case rng.IntN(12) == 0:
				b.WriteString(", ")
			default:
				b.WriteByte(' ')
			}
		}
	}
	for sec := 0; b.Len() < size; sec++ {
		fmt.Fprintf(&b, "%s %s %s\n\n", strings.Repeat("#", 1+sec%3), word(), word())
		for range 1 + rng.IntN(3) {
			for range 2 + rng.IntN(4) {
				sentence()
			}
			fmt.Fprintf(&b, "See [[%s %s]] and `%s()`.\n\n", word(), word(), word())
		}
		switch sec % 4 {
		case 1:
			for range 3 {
				b.WriteString("- ")
				sentence()
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		case 3:
			fmt.Fprintf(&b, "```go\nfunc %s(x int) error {\n\treturn nil // %s\n}\n```\n\n", word(), word())
		}
	}
	return b.String()
}

// cjkText generates ~size bytes of deterministic Chinese, Japanese and
// Korean prose with some Latin words and punctuation mixed in.
func cjkText(size int) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(cjkPhrases[rng.IntN(len(cjkPhrases))])
		switch rng.IntN(6) {
		case 0:
			b.WriteString(" BM25 ")
		case 1:
			b.WriteString("。\n")
		default:
			b.WriteString("、")
		}
	}
	return b.String()
}

func benchEach(b *testing.B, text string, mode Mode) {
	a := New()
	a.Each(text, mode, func(string, int, int) {}) // warm the stem cache
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	terms := 0
	for b.Loop() {
		a.Each(text, mode, func(string, int, int) { terms++ })
	}
	if terms == 0 {
		b.Fatal("no terms")
	}
}

func BenchmarkEach(b *testing.B) {
	en, cjk := englishMarkdown(benchBytes), cjkText(benchBytes)
	b.Run("English/Index", func(b *testing.B) { benchEach(b, en, Index) })
	b.Run("English/Query", func(b *testing.B) { benchEach(b, en, Query) })
	b.Run("CJK/Index", func(b *testing.B) { benchEach(b, cjk, Index) })
	b.Run("CJK/Query", func(b *testing.B) { benchEach(b, cjk, Query) })
}

// BenchmarkTermVocabulary looks up stems from many goroutines over a
// vault-sized vocabulary (100k distinct words, all cached), as a server
// under many concurrent searches does.
func BenchmarkTermVocabulary(b *testing.B) {
	a := New()
	words := make([]string, 100_000)
	for i := range words {
		w := []byte("word")
		for n := i; n > 0; n /= 26 {
			w = append(w, byte('a'+n%26))
		}
		words[i] = string(w) + "ing"
		a.Term(words[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			a.Term(words[i%len(words)])
			i += 7919
		}
	})
}
