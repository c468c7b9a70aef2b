// Package tokenizer runs HuggingFace tokenizer.json files in pure Go: the
// BERT, NFKC/NFD, Replace, Strip and Precompiled (SentencePiece)
// normalizers, the Bert, Whitespace, Punctuation, Digits and Metaspace
// pre-tokenizers, and the WordPiece and Unigram models; BPE is not
// implemented (ErrUnsupported). It is the one tokenizer that both the
// model2vec static models and the transformer models (package onnx) use:
// Encode gives the ids without special tokens, and Special describes the
// tokens the post-processor puts around a sequence or a pair.
package tokenizer
