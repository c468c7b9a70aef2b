// Package onnx runs transformer models in process through ONNX Runtime:
// sentence-embedding models (all-MiniLM-L6-v2, bge-small-en-v1.5,
// multilingual-e5-small) and cross-encoder rerankers
// (ms-marco-MiniLM-L-6-v2, bge-reranker-base), in Hugging Face's folder
// layout (onnx/model.onnx, tokenizer.json, config.json).
//
// The runtime needs cgo and the ONNX Runtime shared library, so it is
// built only with the build tag `ort`; without it Open and OpenReranker
// fail with ErrNeedsORT and the rest of the package (the model table, the
// library search, batching and pooling) still compiles, for listings and
// `doctor`. Tokenization is package embed/tokenizer's, the one model2vec
// uses.
package onnx
