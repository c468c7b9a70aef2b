package onnxgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFolder lays the model out as a Hugging Face repository does:
// onnx/model.onnx, tokenizer.json (given) and config.json (BERT's keys
// for this shape). alias, if not "", goes into a manifest.json as
// install-model writes it, which makes the folder load as that known
// model (its pooling and prefixes).
func (m *Model) WriteFolder(dir string, tokenizerJSON []byte, alias string) error {
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		return err
	}
	cfg, err := json.Marshal(map[string]any{
		"model_type": "bert", "hidden_size": m.Hidden, "num_hidden_layers": m.Layers, "num_attention_heads": m.Heads,
		"intermediate_size": m.Intermediate, "max_position_embeddings": m.MaxPositions, "type_vocab_size": m.TypeVocab,
		"vocab_size": m.Vocab, "pad_token_id": 0, "layer_norm_eps": m.eps(), "hidden_act": "gelu",
	})
	if err != nil {
		return err
	}
	files := map[string][]byte{"onnx/model.onnx": m.ONNX, "tokenizer.json": tokenizerJSON, "config.json": cfg}
	if alias != "" {
		files["manifest.json"] = fmt.Appendf(nil, `{"alias":%q}`, alias)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
