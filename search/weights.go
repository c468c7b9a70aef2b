package search

import (
	"strings"

	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// builtinModelPrefix starts the ID of the GloVe model compiled into the
// binary, vaultModelPrefix that of the model learned from the vault.
const (
	builtinModelPrefix = "builtin:"
	vaultModelPrefix   = "vault:"
)

// DefaultWeights are the RRF weights used when neither the server's
// configuration nor the request sets them (the values are in
// rankers/tuning.go). They were chosen by hand from about ten settings
// tried on SciFact train, enquire-bench and vault-links (docs/benchmarks.md
// has the grids), not learned: BM25 counts
// twice as much as TF-IDF, the two lexical signals being largely redundant
// and BM25 the better one on long texts; a dense model of unknown quality
// (Ollama, OpenAI-compatible, model2vec) weighs like TF-IDF. The built-in
// GloVe model weighs 0 — every positive weight lowered nDCG@10 on both
// tuning sets — so it annotates hits (per_signal) without moving them; so
// does the model learned from the vault ("vault"), for the same reason.
// Feedback, the second TF-IDF pass expanded from the first hits
// (rankers.TFIDF.Feedback), weighs 0.5: the best of the settings tried
// summed over the tuning sets, and no set lost more than 0.0003.
// Equal-weight RRF is one flag away (--rrf-weights
// bm25=1,tfidf=1,embeddings=1,feedback=0).
func DefaultWeights(embedderID string) map[string]float64 {
	w := map[string]float64{rankers.SignalBM25: rankers.WeightBM25, rankers.SignalTFIDF: rankers.WeightTFIDF,
		rankers.SignalEmbeddings: rankers.WeightEmbeddings, rankers.SignalFeedback: rankers.WeightFeedback,
		rankers.SignalProximity: rankers.WeightProximity}
	switch {
	case strings.HasPrefix(embedderID, builtinModelPrefix):
		w[rankers.SignalEmbeddings] = rankers.WeightBuiltinEmbeddings
	case strings.HasPrefix(embedderID, vaultModelPrefix):
		w[rankers.SignalEmbeddings] = rankers.WeightVaultEmbeddings
	}
	return w
}
