// Package model2vec runs model2vec static embedding models
// (https://github.com/MinishLab/model2vec, e.g. minishlab/potion-base-8M)
// in pure Go, offline.
//
// A model folder holds model.safetensors (the token embedding table, and
// optionally per-token "weights" and a vocabulary-quantisation "mapping"),
// tokenizer.json (a HuggingFace tokenizers file, read by package
// embed/tokenizer; WordPiece and Unigram
// models are supported) and optionally config.json. A sentence vector is
// the mean of the (weighted) vectors of its tokens, L2-normalised,
// following model2vec's StaticModel.encode with its defaults as its
// source reads: no special tokens are added, the unknown token is
// dropped, and input is truncated to 512 tokens (after a cut to 512 × the
// median token length in characters). The tests check this on
// hand-built tokenizer and safetensors fixtures; no test compares the
// output with the reference implementation on a published model (that
// needs a download), so parity with model2vec is intended, not verified.
//
// Load opens an installed folder; Install downloads a known alias from
// Hugging Face into a cache folder; Find locates an installed alias without
// touching the network.
package model2vec
