package search

import (
	"strings"
	"unicode"

	"github.com/enquire-mcp/enquire-mcp/analysis"
	"github.com/enquire-mcp/enquire-mcp/graph"
	"github.com/enquire-mcp/enquire-mcp/rankers"
)

// builtinModelPrefix starts the ID of the model compiled into the
// binary (embed/minilm), vaultModelPrefix that of the model learned from the vault.
const (
	builtinModelPrefix = "builtin:"
	vaultModelPrefix   = "vault:"
	// transformerPrefix starts the ID of a sentence-transformer run in
	// process, by either engine (embed/onnx).
	transformerPrefix = "transformer:"
)

// DefaultWeights are the RRF weights used when neither the server's
// configuration nor the request sets them (the values are in
// rankers/tuning.go). They were chosen by hand from about ten settings
// tried on SciFact train, enquire-bench and vault-links (docs/benchmarks.md
// has the grids), not learned: BM25 counts
// twice as much as TF-IDF, the two lexical signals being largely redundant
// and BM25 the better one on long texts; a dense model of unknown quality
// (Ollama, OpenAI-compatible, model2vec) weighs like TF-IDF. The built-in
// model weighs 0 (rankers.WeightBuiltinEmbeddings says why), so it
// annotates hits (per_signal) without moving them; so
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
	case strings.HasPrefix(embedderID, transformerPrefix):
		w[rankers.SignalBM25] = rankers.WeightModelBM25
		w[rankers.SignalTFIDF] = rankers.WeightModelTFIDF
		w[rankers.SignalEmbeddings] = rankers.WeightModelEmbeddings
		w[rankers.SignalFeedback] = rankers.WeightModelFeedback
	}
	return w
}

// DefaultBoost is the graph boost of searches with the vectors of the
// model embedderID ("" for none): a transformer's ranking has its own
// strength (rankers.BoostStrengthModel).
func DefaultBoost(embedderID string) graph.BoostOptions {
	if strings.HasPrefix(embedderID, transformerPrefix) {
		return graph.BoostOptions{Depth: rankers.BoostDepth, Strength: rankers.BoostStrengthModel}
	}
	return graph.DefaultBoost
}

// mostlyCJK reports whether at least half of the letters of query are
// CJK (Han, kana, Hangul).
func mostlyCJK(query string) bool {
	letters, cjk := 0, 0
	for _, r := range query {
		switch {
		case analysis.IsCJK(r):
			cjk++
			letters++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return cjk > 0 && 2*cjk >= letters
}
