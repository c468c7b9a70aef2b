package rankers

// SignalRerank is the cross-encoder reranker's name in per_signal and
// signal_errors. It is not a ranker that fuses: it re-orders the fused
// top DefaultRerankTopN (search.Options.RerankTopN).
const SignalRerank = "rerank"

// DefaultRerankTopN is how many fused hits a reranker re-scores: 50
// passages of ~200 tokens cost ~1 s with a MiniLM-sized cross-encoder on
// 2 cores (docs/benchmarks.md), the most a reranked search may add; hits
// below it keep their fused order.
const DefaultRerankTopN = 50
