// Package bert runs a BERT encoder (all-MiniLM-L6-v2, bge-small,
// e5-small: word, position and token-type embeddings, LayerNorm, then
// per layer multi-head self-attention and a GELU feed-forward block,
// each with a residual LayerNorm) in pure Go, in float32, with no cgo.
//
// Speed comes from the matrix multiply: every weight matrix is packed
// once, at load, into column panels the micro-kernel streams, and the
// rows of a multiply are shared among at most GOMAXPROCS goroutines. On
// amd64 CPUs with AVX2 and FMA the micro-kernel (AVX-512 where the CPU
// has it), softmax and GELU are Go assembly, chosen at run time; on
// arm64 they are NEON assembly, which every arm64 CPU runs; everywhere
// else, and on amd64 CPUs without AVX2 or FMA, they are plain Go,
// computing the same values. exp and erf are float32 polynomials
// accurate to float32 precision, not approximations of the model: the
// 206 reference texts of all-MiniLM-L6-v2 come out at cosine ≥ 0.9999
// with sentence-transformers' vectors (embed/onnx's
// TestPureGoMatchesReference).
//
// Sequences are not padded: the tokens of a batch are laid end to end
// for the dense layers, and attention runs per sequence and head over
// that sequence's own tokens. That is the same as attention with the
// padding mask, where the masked positions weigh exp(-10000) = 0 in
// float32, without computing them.
package bert
