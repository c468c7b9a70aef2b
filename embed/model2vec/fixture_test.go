package model2vec

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// testTensor is a tensor to write into a safetensors fixture.
type testTensor struct {
	name  string
	dtype string
	shape []int64
	data  []byte
}

// safetensorsBytes serialises tensors (in the given order) with the
// header padded to 8 bytes, as the reference writer does.
func safetensorsBytes(ts []testTensor, metadata map[string]string) []byte {
	hdr := map[string]any{}
	if metadata != nil {
		hdr["__metadata__"] = metadata
	}
	var data []byte
	for _, t := range ts {
		hdr[t.name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": []int{len(data), len(data) + len(t.data)}}
		data = append(data, t.data...)
	}
	js, _ := json.Marshal(hdr)
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	return append(append(out, js...), data...)
}

// f32Bytes encodes float32s little-endian.
func f32Bytes(v []float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

// f16Bytes encodes float32s as little-endian halves.
func f16Bytes(v []float32) []byte {
	out := make([]byte, 0, 2*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint16(out, f32ToF16(x))
	}
	return out
}

// i64Bytes encodes int64s little-endian.
func i64Bytes(v []int64) []byte {
	out := make([]byte, 0, 8*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, uint64(x))
	}
	return out
}

// testDim is the dimension of the fixture models.
const testDim = 8

// testEmbeddings returns rows × testDim deterministic, distinct vectors.
func testEmbeddings(rows int) []float32 {
	out := make([]float32, rows*testDim)
	for i := range out {
		out[i] = float32(math.Sin(float64(i)*0.7+1)) * float32(1+i%5)
	}
	return out
}

// wordPieceVocab is the fixture BERT-style vocabulary, by id.
var wordPieceVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cafe", "play", "##ing", "##ed", "un",
	"##know", "##n", "\u4e2d", "\u6587", "hello", "world", "!", ",", "naive", "istanbul",
}

// wordPieceJSON is a tokenizer.json like bert-base-uncased's.
func wordPieceJSON() []byte {
	vocab := map[string]int{}
	for i, v := range wordPieceVocab {
		vocab[v] = i
	}
	var added []map[string]any
	for i, v := range wordPieceVocab[:4] {
		added = append(added, map[string]any{"id": i, "content": v, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	doc := map[string]any{
		"version":        "1.0",
		"truncation":     nil,
		"padding":        nil,
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "TemplateProcessing"},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
	js, _ := json.Marshal(doc)
	return js
}

// unigramPieces is the fixture SentencePiece vocabulary with scores.
var unigramPieces = []struct {
	piece string
	score float64
}{
	{"<unk>", 0}, {"\u2581", -2}, {"\u2581hello", -1}, {"\u2581world", -1.5}, {"\u2581he", -3},
	{"llo", -3}, {"h", -5}, {"e", -5}, {"l", -5}, {"o", -5},
	{"\u2581\u65e5\u672c", -2.5}, {"\u65e5\u672c", -2}, {",", -4}, {"\u2581hello\u2581world", -1.2}, {"<pad>", 0},
}

// unigramJSON is an XLM-R-like tokenizer.json: NFKC, Metaspace, Unigram.
// With multiword it mimics a model2vec-distilled tokenizer instead:
// punctuation padded with spaces, whitespace collapsed, Metaspace
// without splitting, so pieces may span words.
func unigramJSON(multiword bool) []byte {
	var vocab [][]any
	for _, p := range unigramPieces {
		vocab = append(vocab, []any{p.piece, p.score})
	}
	normalizers := []any{map[string]any{"type": "NFKC"}}
	pre := map[string]any{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true}
	if multiword {
		for _, c := range "!,.?" {
			normalizers = append(normalizers, map[string]any{"type": "Replace", "pattern": map[string]any{"String": string(c)}, "content": " " + string(c) + " "})
		}
		normalizers = append(normalizers,
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": `\s+`}, "content": " "},
			map[string]any{"type": "Strip", "strip_left": true, "strip_right": true})
		pre["split"] = false
	}
	doc := map[string]any{
		"version": "1.0",
		"added_tokens": []any{
			map[string]any{"id": 0, "content": "<unk>", "special": true, "normalized": false},
			map[string]any{"id": 14, "content": "<pad>", "special": true, "normalized": false},
		},
		"normalizer":    map[string]any{"type": "Sequence", "normalizers": normalizers},
		"pre_tokenizer": pre,
		"model":         map[string]any{"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": false},
	}
	js, _ := json.Marshal(doc)
	return js
}

// fixtureFiles returns the files of a fixture model folder.
func fixtureFiles(tok []byte, rows int, dtype string, extra ...testTensor) map[string][]byte {
	emb := testEmbeddings(rows)
	data := f32Bytes(emb)
	if dtype == "F16" {
		data = f16Bytes(emb)
	}
	ts := append([]testTensor{{"embeddings", dtype, []int64{int64(rows), testDim}, data}}, extra...)
	return map[string][]byte{
		modelFile:     safetensorsBytes(ts, map[string]string{"format": "np"}),
		tokenizerFile: tok,
		configFile:    []byte(`{"model_type": "model2vec", "normalize": true, "hidden_dim": 8}`),
	}
}

// writeFiles writes files into dir.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), files[n], 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// f64Bytes encodes float64s little-endian.
func f64Bytes(v []float64) []byte {
	out := make([]byte, 0, 8*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

// i32Bytes encodes int32s little-endian.
func i32Bytes(v []int32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, uint32(x))
	}
	return out
}

// mathBits is math.Float32bits, short for the tests.
func mathBits(f float32) uint32 { return math.Float32bits(f) }
