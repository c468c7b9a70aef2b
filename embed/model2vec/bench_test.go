package model2vec

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/enquire-mcp/enquire-mcp/embed"
)

// synthVocab makes a deterministic pseudo-language: syllables, words of
// one to four syllables, and WordPiece continuation pieces, so that
// frequent words are whole tokens and rare ones split into pieces.
func synthVocab(rng *rand.Rand, words int) (vocab, wordList []string) {
	cons := strings.Split("b c d f g h j k l m n p r s t v w z st tr pl ch sh th", " ")
	vows := strings.Split("a e i o u ai ea ou io", " ")
	var syll []string
	for _, c := range cons {
		for _, v := range vows {
			syll = append(syll, c+v)
		}
	}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			vocab = append(vocab, s)
		}
	}
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		add(s)
	}
	for _, p := range strings.Split(`. , ; : ! ? ( ) " ' - / # * 0 1 2 3 4 5 6 7 8 9`, " ") {
		add(p)
	}
	for c := 'a'; c <= 'z'; c++ {
		add(string(c))
		add("##" + string(c))
	}
	for _, s := range syll {
		add(s)
		add("##" + s)
	}
	for len(wordList) < words {
		n := 1 + rng.IntN(4)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		w := b.String()
		if !seen[w] {
			add(w)
			wordList = append(wordList, w)
		}
	}
	return vocab, wordList
}

// synthText draws a ~150-word note chunk: Zipf-distributed words, a few
// out-of-vocabulary compounds, capitals, accents and punctuation.
func synthText(rng *rand.Rand, zipf *rand.Zipf, words []string) string {
	var b strings.Builder
	for i := range 150 {
		w := words[zipf.Uint64()]
		switch r := rng.IntN(100); {
		case r < 5: // an unseen compound: splits into pieces
			w += words[rng.IntN(len(words))]
		case r < 10:
			w = strings.ToUpper(w[:1]) + w[1:]
		case r < 12:
			w = strings.Replace(w, "e", "é", 1)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		switch r := rng.IntN(100); {
		case r < 7:
			b.WriteByte(',')
		case r < 11:
			b.WriteString(".")
		case r < 12:
			b.WriteString(" (42)")
		}
	}
	return b.String()
}

// synthModel writes a 256-dimensional model of the given kind and returns
// it with its vocabulary words.
func synthModel(b *testing.B, kind string) (*Model, []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab, words := synthVocab(rng, 30000)
	var tok []byte
	switch kind {
	case "wordpiece":
		ids := map[string]int{}
		for i, v := range vocab {
			ids[v] = i
		}
		tok, _ = json.Marshal(map[string]any{
			"added_tokens":  []any{map[string]any{"id": 1, "content": "[UNK]", "special": true}},
			"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "lowercase": true},
			"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
			"model":         map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ids},
		})
	case "unigram":
		// A model2vec-style multiword Unigram: whole-text Viterbi.
		var pieces [][]any
		for i, v := range vocab {
			v = strings.TrimPrefix(v, "##")
			if !strings.HasPrefix(vocab[i], "##") && !strings.HasPrefix(v, "[") {
				v = "▁" + v
			}
			pieces = append(pieces, []any{v, -float64(1 + i%97)})
		}
		normalizers := []any{map[string]any{"type": "NFKC"}, map[string]any{"type": "Lowercase"}}
		for _, c := range ".,;:!?()" {
			normalizers = append(normalizers, map[string]any{"type": "Replace", "pattern": map[string]any{"String": string(c)}, "content": " " + string(c) + " "})
		}
		normalizers = append(normalizers, map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": `\s+`}, "content": " "},
			map[string]any{"type": "Strip", "strip_left": true, "strip_right": true})
		tok, _ = json.Marshal(map[string]any{
			"normalizer":    map[string]any{"type": "Sequence", "normalizers": normalizers},
			"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": false},
			"model":         map[string]any{"type": "Unigram", "unk_id": 1, "vocab": pieces},
		})
	}
	const dim = 256
	emb := make([]float32, len(vocab)*dim)
	for i := range emb {
		emb[i] = rng.Float32()*2 - 1
	}
	files := map[string][]byte{
		modelFile:     safetensorsBytes([]testTensor{{"embeddings", "F32", []int64{int64(len(vocab)), dim}, f32Bytes(emb)}}, nil),
		tokenizerFile: tok,
	}
	return loadFixture(b, "synth-"+kind, files), words
}

// BenchmarkEmbed embeds batches of 256 chunks of ~150 words with a
// 256-dimensional model on all GOMAXPROCS cores and reports chunks/s.
func BenchmarkEmbed(b *testing.B) {
	for _, kind := range []string{"wordpiece", "unigram"} {
		b.Run(kind, func(b *testing.B) {
			m, words := synthModel(b, kind)
			rng := rand.New(rand.NewPCG(3, 4))
			zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
			texts := make([]string, 256)
			for i := range texts {
				texts[i] = synthText(rng, zipf, words)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if _, err := m.Embed(ctx, texts, embed.Document); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(texts))/time.Since(start).Seconds(), "chunks/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkLoad measures loading a 30k × 256 model.
func BenchmarkLoad(b *testing.B) {
	m, _ := synthModel(b, "wordpiece")
	for b.Loop() {
		if _, err := Load(context.Background(), m.dir); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleLoad() {
	m, err := Load(context.Background(), "/path/to/models/potion-base-8M")
	if err != nil {
		fmt.Println("not installed")
		return
	}
	vecs, _ := m.Embed(context.Background(), []string{"It's dangerous to go alone!"}, embed.Query)
	fmt.Println(m.ID(), len(vecs[0]))
	// Output: not installed
}
