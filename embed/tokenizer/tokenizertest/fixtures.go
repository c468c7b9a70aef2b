// Package tokenizertest holds the tokenizer.json fixtures that the
// tokenizer and model2vec tests share: a bert-base-uncased-like WordPiece
// file and an XLM-R-like Unigram file, both with tiny vocabularies.
package tokenizertest

import "encoding/json"

// WordPieceVocab is the fixture BERT-style vocabulary, by id.
var WordPieceVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cafe", "play", "##ing", "##ed", "un",
	"##know", "##n", "\u4e2d", "\u6587", "hello", "world", "!", ",", "naive", "istanbul",
}

// WordPieceJSON is a tokenizer.json like bert-base-uncased's.
func WordPieceJSON() []byte {
	vocab := map[string]int{}
	for i, v := range WordPieceVocab {
		vocab[v] = i
	}
	var added []map[string]any
	for i, v := range WordPieceVocab[:4] {
		added = append(added, map[string]any{"id": i, "content": v, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	doc := map[string]any{
		"version":        "1.0",
		"truncation":     nil,
		"padding":        nil,
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": bertTemplate(),
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

// UnigramJSON is an XLM-R-like tokenizer.json: NFKC, Metaspace, Unigram.
// With multiword it mimics a model2vec-distilled tokenizer instead:
// punctuation padded with spaces, whitespace collapsed, Metaspace
// without splitting, so pieces may span words.
func UnigramJSON(multiword bool) []byte {
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

// UnigramSize is the number of pieces in UnigramJSON's vocabulary.
func UnigramSize() int { return len(unigramPieces) }

// bertTemplate is bert-base-uncased's TemplateProcessing with the
// fixture's ids.
func bertTemplate() map[string]any {
	piece := func(kind, id string, typeID int) map[string]any {
		return map[string]any{kind: map[string]any{"id": id, "type_id": typeID}}
	}
	return map[string]any{
		"type":   "TemplateProcessing",
		"single": []any{piece("SpecialToken", "[CLS]", 0), piece("Sequence", "A", 0), piece("SpecialToken", "[SEP]", 0)},
		"pair": []any{piece("SpecialToken", "[CLS]", 0), piece("Sequence", "A", 0), piece("SpecialToken", "[SEP]", 0),
			piece("Sequence", "B", 1), piece("SpecialToken", "[SEP]", 1)},
		"special_tokens": map[string]any{
			"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{2}, "tokens": []string{"[CLS]"}},
			"[SEP]": map[string]any{"id": "[SEP]", "ids": []int{3}, "tokens": []string{"[SEP]"}},
		},
	}
}
