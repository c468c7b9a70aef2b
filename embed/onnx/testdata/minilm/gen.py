"""Reference vectors for all-MiniLM-L6-v2, computed independently of Go.

Tokenisation is Hugging Face's `tokenizers` (the Rust implementation
sentence-transformers uses) reading the model's tokenizer.json; the
forward pass is BERT in float64 numpy, with mean pooling and L2
normalisation as the model's sentence-transformers modules do
(modules.json: Transformer, Pooling(mean), Normalize), and
max_seq_length 256 from sentence_bert_config.json.

    python gen.py MODEL_DIR OUT_DIR

writes OUT_DIR/reference.jsonl ({"text", "ids"} per line) and
OUT_DIR/vectors.f32 (little-endian float32, 384 per text, same order).
Needs numpy, scipy, safetensors and tokenizers.
"""
import json
import os
import sys

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer

import texts


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def main(model_dir, out_dir):
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    st = json.load(open(os.path.join(model_dir, "sentence_bert_config.json")))
    max_len = st["max_seq_length"]
    eps = cfg["layer_norm_eps"]
    heads = cfg["num_attention_heads"]
    w = {k: v.astype(np.float64) for k, v in load_file(os.path.join(model_dir, "model.safetensors")).items()}
    w = {k.removeprefix("bert."): v for k, v in w.items()}
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len)

    def lin(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    def encode(ids):
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hd = x.shape[1] // heads
        for i in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            q = lin(x, p + "attention.self.query").reshape(n, heads, hd).transpose(1, 0, 2)
            k = lin(x, p + "attention.self.key").reshape(n, heads, hd).transpose(1, 0, 2)
            v = lin(x, p + "attention.self.value").reshape(n, heads, hd).transpose(1, 0, 2)
            s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(1, 0, 2).reshape(n, -1)
            x = layer_norm(x + lin(ctx, p + "attention.output.dense"),
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
            f = lin(x, p + "intermediate.dense")
            f = 0.5 * f * (1 + erf(f / np.sqrt(2)))
            x = layer_norm(x + lin(f, p + "output.dense"),
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        v = x.mean(0)
        return v / max(np.linalg.norm(v), 1e-12)

    os.makedirs(out_dir, exist_ok=True)
    vecs = []
    with open(os.path.join(out_dir, "reference.jsonl"), "w", encoding="utf-8") as f:
        for t in texts.all_texts():
            ids = tok.encode(t).ids
            vecs.append(encode(ids))
            f.write(json.dumps({"text": t, "ids": ids}, ensure_ascii=False) + "\n")
    np.asarray(vecs, dtype="<f4").tofile(os.path.join(out_dir, "vectors.f32"))
    print(f"{len(vecs)} texts, {len(vecs[0])} dims")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
